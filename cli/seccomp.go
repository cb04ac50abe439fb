package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/sandbox"
)

func (a *app) seccompCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "seccomp",
		Short: "Inspect seccomp profiles (OCI runtime-spec LinuxSeccomp format)",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "default",
		Short: "Print the default seccomp profile that authbench exec applies",
		Args:  noArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			_, err := a.stdout.Write(sandbox.DefaultProfileJSON())
			return err
		},
	}, &cobra.Command{
		Use:   "check FILE",
		Short: "Compile a seccomp profile for this machine: prints ok, or the problem (exit 2)",
		Args:  exactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			f, err := loadSeccomp(args[0], nil)
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(map[string]any{"file": args[0], "valid": true, "instructions": len(f.Program), "skipped": f.Skipped})
			}
			fmt.Fprintf(a.stdout, "ok: %d BPF instructions", len(f.Program))
			if len(f.Skipped) > 0 {
				fmt.Fprintf(a.stdout, "; %d names are syscalls of other architectures only", len(f.Skipped))
			}
			fmt.Fprintln(a.stdout)
			return nil
		},
	})
	return cmd
}

// loadSeccomp loads and compiles a profile ("" for the default) for a
// command that keeps the granted capabilities (none unless named; see
// sandbox.HeldCapabilities). Any problem, such as unknown syscall names, is a usage
// error.
func loadSeccomp(file string, granted []string) (*sandbox.Filter, error) {
	if file == "" {
		return sandbox.DefaultFilter()
	}
	prof, err := sandbox.LoadProfile(file)
	if err != nil {
		return nil, usageError(err)
	}
	f, err := sandbox.CompileProfile(prof, sandbox.CompileOptions{Capabilities: sandbox.HeldCapabilities(granted)})
	if err != nil {
		return nil, usageError(err)
	}
	return f, nil
}
