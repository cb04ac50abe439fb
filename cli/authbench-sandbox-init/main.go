// Command authbench-sandbox-init is sandbox-init on its own: the process
// that waits at its gate for a spec from its launcher, confines itself
// (Landlock, capabilities, identity, no_new_privs, seccomp) and execs the
// run's command. It links only the sandbox package, so it starts in about
// a millisecond, where the whole authbench binary, which can play the
// same part (`authbench sandbox-init`), spends several in the
// initialisation of every command's packages. `make build` puts it next
// to bin/authbench, where the launcher looks for it (sandbox.InitProgram).
// It is not meant to be run by hand.
package main

import (
	"os"

	"github.com/authbench/authbench/sandbox"
)

func main() {
	// sandbox-init's argv is [prog, InitCommand] (with one more argument
	// for the helpers sandbox-init starts itself, such as the openat2
	// agent: RunInit reads it).
	if len(os.Args) < 2 || os.Args[1] != sandbox.InitCommand {
		os.Stderr.WriteString("authbench-sandbox-init: started by authbench only (argument " + sandbox.InitCommand + ")\n")
		os.Exit(2)
	}
	_ = sandbox.RunInit()
	os.Exit(sandbox.ExitInitFailure)
}
