package cli

import (
	"errors"
	"fmt"

	"github.com/authbench/authbench/policy"
	"github.com/spf13/cobra"
)

func (a *app) scoreCmd() *cobra.Command {
	var policyFile, specFile, rootDir string
	cmd := &cobra.Command{
		Use:   "score --policy P --spec S [--root R]",
		Short: "Score a policy statically against a task spec (precision, recall, F1 per axis)",
		Long: `Score a policy π against a task's permission spec S over an environment
root R (a rootfs directory used as "/"; default "/"), with the semantics
of the published AuthBench verifier.

An invalid policy is a result, not a usage error: it scores
{"valid": false, "error": "..."} and exits 0. An unreadable file, an
invalid spec or a bad root exits 2.`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			if policyFile == "" || specFile == "" {
				return usageErrorf("score needs --policy and --spec")
			}
			spec, err := policy.LoadSpec(specFile)
			if err != nil {
				return usageError(err)
			}
			root, err := policy.NewRoot(rootDir)
			if err != nil {
				return usageErrorf("--root: %v", err)
			}
			sc, err := scorePolicyFile(policyFile, spec, root)
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(sc)
			}
			a.printScore(sc)
			return nil
		},
	}
	cmd.Flags().StringVar(&policyFile, "policy", "", "policy file (JSON with read, write, execute)")
	cmd.Flags().StringVar(&specFile, "spec", "", "task spec file (permission_eval_spec.json)")
	cmd.Flags().StringVar(&rootDir, "root", "/", "environment root directory used as /")
	return cmd
}

// scorePolicyFile scores the policy file; an invalid policy yields an
// invalid score, an unreadable one or a spec invalid in this root a
// usage error.
func scorePolicyFile(file string, spec *policy.Spec, root *policy.Root) (*policy.Score, error) {
	pol, err := policy.LoadPolicy(file)
	var ve *policy.ValidationError
	switch {
	case errors.As(err, &ve):
		return policy.InvalidScore(err), nil
	case err != nil:
		return nil, usageError(err)
	}
	sc, err := policy.ScorePolicy(pol, spec, root)
	if err != nil {
		return nil, usageError(err)
	}
	return sc, nil
}

func (a *app) printScore(sc *policy.Score) {
	if !sc.Valid {
		fmt.Fprintf(a.stdout, "invalid policy: %s\n", sc.Error)
		return
	}
	fmt.Fprintf(a.stdout, "%-8s %9s %9s %9s\n", "axis", "precision", "recall", "f1")
	for _, ax := range policy.Axes {
		s := sc.Axes[ax]
		fmt.Fprintf(a.stdout, "%-8s %9.4f %9.4f %9.4f\n", ax, s.Precision, s.Recall, s.F1)
	}
	if sc.SensitiveCoverage != nil {
		fmt.Fprintf(a.stdout, "sensitive exposure coverage: %.4f\n", *sc.SensitiveCoverage)
	}
}
