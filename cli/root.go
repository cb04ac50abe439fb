package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/authbench/authbench/daemon"
	"github.com/authbench/authbench/internal/termtext"
	"github.com/authbench/authbench/sandbox"
	"github.com/spf13/cobra"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// Version is the authbench release; set at build time with
// -ldflags "-X github.com/authbench/authbench/cli.Version=...".
var Version = "0.1.0-dev"

// Exit codes shared by every command.
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitUsage   = 2
)

// app is the state shared by all commands of one invocation.
type app struct {
	jsonOut  bool
	logLevel string
	// socket is the daemon's socket; "" means never use a daemon.
	socket string
	stdout io.Writer
	stderr io.Writer
	log    *zap.Logger
	// exitCode lets a command that ran a child report the child's status.
	exitCode int
}

// Main runs the CLI with args and returns the process exit code.
func Main(args []string) int {
	if len(args) > 0 && args[0] == sandbox.InitCommand {
		_ = sandbox.RunInit()
		return sandbox.ExitInitFailure
	}
	if len(args) == 2 && args[0] == daemon.WatchdogCommand {
		if err := daemon.RunWatchdog(args[1], watchdogLog()); err != nil {
			fmt.Fprintf(os.Stderr, "authbench: %v\n", err)
			return 1
		}
		return 0
	}
	if len(args) > 0 && args[0] == sandbox.DieWithParentCommand {
		err := sandbox.RunDieWithParent(args[1:])
		fmt.Fprintf(os.Stderr, "authbench: %v\n", err)
		return 127
	}
	return Run(args, os.Stdout, os.Stderr)
}

// Run runs one CLI invocation with the given output streams and returns
// its exit code.
func Run(args []string, stdout, stderr io.Writer) int {
	a := &app{stdout: stdout, stderr: stderr, log: zap.NewNop()}
	root := a.rootCmd()
	root.SetArgs(args)
	err := root.Execute()
	_ = a.log.Sync()
	if err == nil {
		return a.exitCode
	}
	fmt.Fprintf(a.stderr, "authbench: %s\n", termtext.EscapeLines(err.Error()))
	var ue *UsageError
	if errors.As(err, &ue) {
		return ExitUsage
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return ExitFailure
}

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "authbench",
		Short:         "Score, enforce and trace file-level permission policies for coding agents",
		Version:       Version,
		SilenceErrors: true,
		SilenceUsage:  true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return a.setupLogger()
		},
	}
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErrorf("%v", err) })
	root.PersistentFlags().BoolVar(&a.jsonOut, "json", false, "print machine-readable JSON on stdout")
	root.PersistentFlags().StringVar(&a.logLevel, "log-level", "warn", "log level on stderr: debug, info, warn, error")
	root.PersistentFlags().StringVar(&a.socket, "socket", defaultSocket(),
		"daemon socket (default $"+SocketEnv+" if set): exec, trace and runs go through a daemon listening there, else run embedded (\"\": always embedded)")
	root.AddCommand(
		a.policyCmd(),
		a.specCmd(),
		a.scoreCmd(),
		a.traceCmd(),
		a.tasksCmd(),
		a.envCmd(),
		a.taskCmd(),
		a.daemonCmd(),
		a.runsCmd(),
		a.execCmd(),
		a.seccompCmd(),
		a.benchCmd(),
		a.reportCmd(),
		a.oracleCmd(),
		a.generateCmd(),
		a.agentToolsCmd(),
	)
	return root
}

// SocketEnv names the environment variable that overrides the default
// daemon socket; set to "" it makes every command run embedded.
const SocketEnv = "AUTHBENCH_SOCKET"

func defaultSocket() string {
	if s, ok := os.LookupEnv(SocketEnv); ok {
		return s
	}
	return daemon.DefaultSocket
}

func (a *app) setupLogger() error {
	var lvl zapcore.Level
	if err := lvl.Set(a.logLevel); err != nil {
		return usageErrorf("--log-level: %v", err)
	}
	cfg := zap.NewDevelopmentConfig()
	cfg.Level = zap.NewAtomicLevelAt(lvl)
	cfg.OutputPaths = []string{"stderr"}
	cfg.ErrorOutputPaths = []string{"stderr"}
	cfg.DisableStacktrace = true
	if a.jsonOut {
		cfg.Encoding = "json"
	}
	l, err := cfg.Build()
	if err != nil {
		return fmt.Errorf("set up logging: %w", err)
	}
	a.log = l
	return nil
}

// watchdogLog is the state watchdog's log: JSON lines on stderr (its
// state dir's watchdog.log).
func watchdogLog() *zap.Logger {
	l, err := zap.NewProduction()
	if err != nil {
		return zap.NewNop()
	}
	return l
}
