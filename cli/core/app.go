// Package core is the light part of the CLI that both binaries link: the
// state of one invocation (App: output streams, logger, daemon socket,
// exit status), its errors and exit statuses, the root command's flags,
// the run API of the commands that run a command (the daemon on the
// socket, else the daemon's Manager embedded here: OpenRunAPI, RunRequest)
// and the exec and score commands themselves. The thin front (cli/front)
// serves exec and score with it; the full CLI (package cli) builds every other command on it.
// It links no task environment, model client, eBPF loader or report
// renderer: what an embedded daemon needs of those (the tracer, the task
// work) the full CLI hands in (App.EmbedRuns).
package core

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/authbench/authbench/daemon"
	"github.com/authbench/authbench/internal/termtext"
	"github.com/authbench/authbench/permreq/broker"
	"github.com/authbench/authbench/sandbox"
)

// Version is the authbench release; set at build time with
// -ldflags "-X github.com/authbench/authbench/cli/core.Version=...".
var Version = "0.1.0-dev"

// SocketEnv names the environment variable that overrides the default
// daemon socket; set to "" it makes every command run embedded.
const SocketEnv = "AUTHBENCH_SOCKET"

// App is the state shared by all commands of one invocation.
type App struct {
	JSONOut  bool
	LogLevel string
	// Socket is the daemon's socket; "" means never use a daemon.
	Socket string
	Stdout io.Writer
	Stderr io.Writer
	Log    *zap.Logger
	// ExitCode lets a command that ran a child report the child's status.
	ExitCode int
	// EmbedRuns embeds the daemon for the runs of exec and trace when no
	// daemon listens; traced asks for the tracer, with a ring of
	// ringBytes (0: the default). nil: EmbedCommands (no tracer).
	EmbedRuns func(traced bool, ringBytes int) (*Embedded, error)
	// Learn makes exec --learn's policy from its runs' events (the full
	// CLI's; nil: exec --learn is refused).
	Learn Learner
	// LandlockABI returns the kernel's Landlock ABI (nil:
	// sandbox.KernelLandlockABI); tests play a kernel without Landlock.
	LandlockABI func() int
}

// NewApp is the state of an invocation writing to stdout and stderr.
func NewApp(stdout, stderr io.Writer) *App {
	return &App{Stdout: stdout, Stderr: stderr, Log: zap.NewNop()}
}

// NewRoot is the root command of both binaries: its name, version,
// persistent flags (--json, --log-level, --socket) and error handling.
func (a *App) NewRoot(short string) *cobra.Command {
	root := &cobra.Command{
		Use:           "authbench",
		Short:         short,
		Version:       Version,
		SilenceErrors: true,
		SilenceUsage:  true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return a.SetupLogger()
		},
	}
	root.SetOut(a.Stdout)
	root.SetErr(a.Stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return UsageErrorf("%v", err) })
	root.PersistentFlags().BoolVar(&a.JSONOut, "json", false, "print machine-readable JSON on stdout")
	root.PersistentFlags().StringVar(&a.LogLevel, "log-level", "warn", "log level on stderr: debug, info, warn, error")
	root.PersistentFlags().StringVar(&a.Socket, "socket", DefaultSocket(),
		"daemon socket (default $"+SocketEnv+" if set): exec, trace and runs go through a daemon listening there, else run embedded (\"\": always embedded)")
	return root
}

// Execute runs root with args and returns the exit code: the command's
// (ExitCode), or that of its error, which is printed on stderr.
func (a *App) Execute(root *cobra.Command, args []string) int {
	root.SetArgs(args)
	err := root.Execute()
	_ = a.Log.Sync()
	if err == nil {
		return a.ExitCode
	}
	fmt.Fprintf(a.Stderr, "authbench: %s\n", termtext.EscapeLines(err.Error()))
	return ExitCode(err)
}

// DefaultSocket is $AUTHBENCH_SOCKET if set, else the daemon's default
// socket.
func DefaultSocket() string {
	if s, ok := os.LookupEnv(SocketEnv); ok {
		return s
	}
	return daemon.DefaultSocket
}

// SetupLogger makes the logger of --log-level and --json.
func (a *App) SetupLogger() error {
	var lvl zapcore.Level
	if err := lvl.Set(a.LogLevel); err != nil {
		return UsageErrorf("--log-level: %v", err)
	}
	cfg := zap.NewDevelopmentConfig()
	cfg.Level = zap.NewAtomicLevelAt(lvl)
	cfg.OutputPaths = []string{"stderr"}
	cfg.ErrorOutputPaths = []string{"stderr"}
	cfg.DisableStacktrace = true
	if a.JSONOut {
		cfg.Encoding = "json"
	}
	l, err := cfg.Build()
	if err != nil {
		return fmt.Errorf("set up logging: %w", err)
	}
	a.Log = l
	return nil
}

// landlockABI is the kernel's Landlock ABI (App.LandlockABI).
func (a *App) landlockABI() int {
	if a.LandlockABI != nil {
		return a.LandlockABI()
	}
	return sandbox.KernelLandlockABI()
}

// RunSpecial runs the commands that are not the CLI's but the binary's
// own re-executions that both binaries serve (sandbox-init,
// die-with-parent); ok is false when args are none of them. The state
// watchdog of an embedded daemon is the full CLI's (it cleans up after
// task runs).
func RunSpecial(args []string) (code int, ok bool) {
	switch {
	case len(args) > 0 && args[0] == sandbox.InitCommand:
		_ = sandbox.RunInit()
		return sandbox.ExitInitFailure, true
	case broker.IsProgram(os.Args[0]):
		return broker.Main(broker.Socket(), args, os.Stderr), true
	case len(args) > 0 && args[0] == sandbox.DieWithParentCommand:
		err := sandbox.RunDieWithParent(args[1:])
		fmt.Fprintf(os.Stderr, "authbench: %v\n", err)
		return 127, true
	}
	return 0, false
}
