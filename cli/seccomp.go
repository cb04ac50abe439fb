package cli

import (
	"fmt"
	"github.com/authbench/authbench/cli/core"

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
			_, err := a.Stdout.Write(sandbox.DefaultProfileJSON())
			return err
		},
	}, &cobra.Command{
		Use:   "check FILE",
		Short: "Compile a seccomp profile for this machine: prints ok, or the problem (exit 2)",
		Args:  exactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			f, err := core.LoadSeccomp(args[0], nil)
			if err != nil {
				return err
			}
			if a.JSONOut {
				return a.PrintJSON(map[string]any{"file": args[0], "valid": true, "instructions": len(f.Program), "skipped": f.Skipped})
			}
			fmt.Fprintf(a.Stdout, "ok: %d BPF instructions", len(f.Program))
			if len(f.Skipped) > 0 {
				fmt.Fprintf(a.Stdout, "; %d names are syscalls of other architectures only", len(f.Skipped))
			}
			fmt.Fprintln(a.Stdout)
			return nil
		},
	})
	return cmd
}
