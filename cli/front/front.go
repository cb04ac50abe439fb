// Package front is the thin authbench binary (bin/authbench): it serves
// `exec` (untraced), `score` over a root (not --task), `--version` and the binary's own re-executions
// (sandbox-init, die-with-parent, the state watchdog) with the light CLI
// core (package cli/core, the daemon's core embedded for exec), and hands
// every other command, its argv unchanged, to the full CLI
// (FullBinaryName next to it, package cli) by exec. A short command thus
// pays for the start-up of a small binary only; what it does is the same
// code either way.
package front

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/cli/core"
	"github.com/authbench/authbench/sandbox"
)

// FullBinaryName is the full CLI's binary, found next to the front.
const FullBinaryName = "authbench-full"

// Main runs the front with args and returns the process exit code; a
// command it does not serve replaces the process with the full CLI.
func Main(args []string) int {
	if code, ok := core.RunSpecial(args); ok {
		return code
	}
	if !ServesHere(args) {
		err := delegate(args)
		fmt.Fprintf(os.Stderr, "authbench: %v\n", err)
		return core.ExitFailure
	}
	a := core.NewApp(os.Stdout, os.Stderr)
	root := a.NewRoot("Score, enforce and trace file-level permission policies for coding agents (authbench --help lists every command)")
	root.AddCommand(a.ExecCmd(), a.ScoreCmd(nil))
	return a.Execute(root, args)
}

// rootValueFlags are the root's flags that take a value as the next
// argument.
var rootValueFlags = map[string]bool{"--socket": true, "--log-level": true}

// ServesHere reports whether the front serves args itself: `--version`
// alone (with root flags), `exec` without --trace or --learn (tracing
// loads the eBPF tracer, the full CLI's), or `score` without --task (building a
// task's image is the full CLI's). Anything else — help, other commands,
// what it cannot tell — goes to the full CLI, which does the same. Pure.
func ServesHere(args []string) bool {
	version := false
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--version":
			version = true
		case rootValueFlags[arg]:
			i++ // its value
		case arg == "--json" || strings.HasPrefix(arg, "--socket=") || strings.HasPrefix(arg, "--log-level=") ||
			strings.HasPrefix(arg, "--json="):
		case arg == "exec":
			return !names(args[i+1:], "--trace", "--learn")
		case arg == "score":
			return !names(args[i+1:], "--task", "-h", "--help")
		default:
			return false // another command, a help flag, a flag the front does not know
		}
	}
	return version
}

// names reports whether a command's arguments, up to "--" (exec's
// command follows it), give one of flags, alone or as flag=value. Exec
// hands on --trace (the tracer is the full CLI's), score --task (the
// task's image is the full CLI's to build) and its help (the full CLI's
// lists --task); a command whose own arguments name such a flag is handed
// on too, which is only slower.
func names(args []string, flags ...string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		for _, f := range flags {
			if a == f || strings.HasPrefix(a, f+"=") {
				return true
			}
		}
	}
	return false
}

// FullBinary is the full CLI next to the front binary self.
func FullBinary(self string) string {
	return filepath.Join(filepath.Dir(self), FullBinaryName)
}

// delegate replaces this process with the full CLI, argv unchanged; it
// returns only on failure: the full binary is missing, or is easier to
// replace than this one (sandbox.TrustedHelper).
func delegate(args []string) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find own executable: %w", err)
	}
	full := FullBinary(self)
	if _, err := os.Stat(full); err != nil {
		return fmt.Errorf("the full CLI %s is missing: this command needs it (make build installs it next to %s): %w", full, self, err)
	}
	if !sandbox.TrustedHelper(full, self) {
		return fmt.Errorf("refusing to run %s: it must be a regular executable owned by root or by %s's owner and writable by its owner only", full, self)
	}
	return fmt.Errorf("run %s: %w", full, unix.Exec(full, append([]string{full}, args...), os.Environ()))
}
