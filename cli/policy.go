package cli

import (
	"errors"
	"fmt"
	"github.com/authbench/authbench/cli/core"

	"github.com/authbench/authbench/internal/termtext"
	"github.com/authbench/authbench/policy"
	"github.com/spf13/cobra"
)

func (a *app) policyCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy",
		Short: "Check and inspect permission policies",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "check FILE",
		Short: "Validate a policy file: prints ok, or every problem with its field (exit 2)",
		Args:  exactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			_, err := policy.LoadPolicy(args[0])
			return a.reportCheck(args[0], err)
		},
	})
	cmd.AddCommand(a.policyPlanCmd(), a.policyExportCmd(), a.policyImportCmd())
	return cmd
}

func (a *app) specCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "spec",
		Short: "Check task permission specs",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "check FILE",
		Short: "Validate a permission_eval_spec.json: prints ok, or every problem with its field (exit 2)",
		Args:  exactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			spec, err := policy.LoadSpec(args[0])
			if err == nil {
				err = policy.LintSpec(spec)
			}
			if err == nil && !a.JSONOut {
				// What the published verifier tolerates: shown, not refused.
				for _, p := range policy.SpecWarnings(spec) {
					fmt.Fprintf(a.Stderr, "%s: warning: %s\n", termtext.Escape(args[0]), termtext.Escape(p.String()))
				}
			}
			return a.reportCheck(args[0], err)
		},
	})
	return cmd
}

// reportCheck prints the outcome of a check command: "ok", or the
// validation problems (as JSON with --json) and a usage error.
func (a *app) reportCheck(file string, err error) error {
	var ve *policy.ValidationError
	switch {
	case err == nil:
		if a.JSONOut {
			return a.PrintJSON(map[string]any{"file": file, "valid": true})
		}
		fmt.Fprintln(a.Stdout, "ok")
		return nil
	case errors.As(err, &ve) && a.JSONOut:
		if perr := a.PrintJSON(map[string]any{"file": file, "valid": false, "problems": ve.Problems}); perr != nil {
			return perr
		}
		return core.Usage(err)
	default:
		return core.Usage(err)
	}
}

// exactArgs is cobra.ExactArgs whose failure is a usage error.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.ExactArgs(n)(cmd, args); err != nil {
			return core.Usage(err)
		}
		return nil
	}
}
