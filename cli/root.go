package cli

import (
	"fmt"
	"io"
	"os"

	"go.uber.org/zap"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/cli/core"
	"github.com/authbench/authbench/daemon"
	"github.com/authbench/authbench/daemon/taskwork"
	"github.com/authbench/authbench/sandbox"
)

// app is the state shared by all commands of one invocation: core's,
// with the full CLI's embedding (tracer, task work).
type app struct {
	*core.App
}

// Main runs the full CLI with args and returns the process exit code.
func Main(args []string) int {
	if code, ok := core.RunSpecial(args); ok {
		return code
	}
	if len(args) == 2 && args[0] == daemon.WatchdogCommand {
		if err := daemon.RunWatchdog(args[1], taskwork.New(taskwork.Config{}), watchdogLog()); err != nil {
			fmt.Fprintf(os.Stderr, "authbench: %v\n", err)
			return 1
		}
		return 0
	}
	return Run(args, os.Stdout, os.Stderr)
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

// Run runs one CLI invocation with the given output streams and returns
// its exit code.
func Run(args []string, stdout, stderr io.Writer) int {
	a := &app{App: core.NewApp(stdout, stderr)}
	a.EmbedRuns = a.embedRuns
	a.LandlockABI = landlockABI
	a.Learn = learnPolicy
	return a.Execute(a.rootCmd(), args)
}

// landlockABI returns the kernel's Landlock ABI; tests replace it to play
// a kernel without Landlock.
var landlockABI = sandbox.KernelLandlockABI

func (a *app) rootCmd() *cobra.Command {
	root := a.NewRoot("Score, enforce and trace file-level permission policies for coding agents")
	root.AddCommand(
		a.policyCmd(),
		a.specCmd(),
		a.ScoreCmd(a.scoreTaskTarget()),
		a.traceCmd(),
		a.tasksCmd(),
		a.envCmd(),
		a.taskCmd(),
		a.daemonCmd(),
		a.runsCmd(),
		a.ExecCmd(),
		a.seccompCmd(),
		a.benchCmd(),
		a.reportCmd(),
		a.viewCmd(),
		a.oracleCmd(),
		a.generateCmd(),
		a.agentToolsCmd(),
	)
	return root
}
