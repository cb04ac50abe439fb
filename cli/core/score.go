package core

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/authbench/authbench/policy"
)

// TaskTarget is what `score --task DIR` needs of the full CLI: the task's
// spec and its built image's rootfs. The thin front has none and hands
// `score --task` on (front.ServesHere).
type TaskTarget struct {
	// AddFlags registers the flags --task uses (images, image map).
	AddFlags func(*pflag.FlagSet)
	// Resolve returns the spec and the root of the task in dir.
	Resolve func(dir string) (*policy.Spec, *policy.Root, error)
}

// ScoreCmd is `authbench score`; task is nil where --task is not served.
func (a *App) ScoreCmd(task *TaskTarget) *cobra.Command {
	var policyFile, specFile, rootDir, taskDir string
	cmd := &cobra.Command{
		Use:   "score --policy P (--spec S [--root R] | --task DIR)",
		Short: "Score a policy statically against a task spec (precision, recall, F1 per axis)",
		Long: `Score a policy π against a task's permission spec S over an environment
root R (a rootfs directory used as "/"; default "/"), with the semantics
of the published AuthBench verifier. When the spec declares the network
axis, the policy may carry "network" (host:port patterns) and the score
has a network row (docs/scoring.md).

With --task DIR the spec is the task's tests/permission_eval_spec.json and
the root its built image's rootfs: the image is built first when it is not
in --images-dir yet (needs root; --image-map as for task run).

An invalid policy is a result, not a usage error: it scores
{"valid": false, "error": "..."} and exits 0. An unreadable file, an
invalid spec or a bad root exits 2.`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			spec, root, err := scoreTarget(policyFile, specFile, rootDir, taskDir, task)
			if err != nil {
				return err
			}
			sc, err := scorePolicyFile(policyFile, spec, root)
			if err != nil {
				return err
			}
			if a.JSONOut {
				return a.PrintJSON(sc)
			}
			a.printScore(sc)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&policyFile, "policy", "", "policy file (JSON with read, write, execute[, network])")
	fl.StringVar(&specFile, "spec", "", "task spec file (permission_eval_spec.json)")
	fl.StringVar(&rootDir, "root", "/", "environment root directory used as /")
	if task != nil {
		fl.StringVar(&taskDir, "task", "", "score against the task `DIR`'s spec over its image's rootfs")
		task.AddFlags(fl)
	}
	return cmd
}

// scoreTarget is the spec and the root a score is computed over: the
// given files, or the task's spec and its image's rootfs.
func scoreTarget(policyFile, specFile, rootDir, taskDir string, task *TaskTarget) (*policy.Spec, *policy.Root, error) {
	if policyFile == "" || (specFile == "" && taskDir == "") {
		return nil, nil, UsageErrorf("score needs --policy and --spec (or --task)")
	}
	if taskDir != "" {
		if specFile != "" || rootDir != "/" {
			return nil, nil, UsageErrorf("score: --task takes the task's spec and image rootfs; give no --spec or --root")
		}
		return task.Resolve(taskDir)
	}
	spec, err := policy.LoadSpec(specFile)
	if err != nil {
		return nil, nil, Usage(err)
	}
	root, err := policy.NewRoot(rootDir)
	if err != nil {
		return nil, nil, UsageErrorf("--root: %v", err)
	}
	return spec, root, nil
}

// scorePolicyFile scores the policy file; an invalid policy yields an
// invalid score, an unreadable one or a spec invalid in this root a
// usage error.
func scorePolicyFile(file string, spec *policy.Spec, root *policy.Root) (*policy.Score, error) {
	pol, err := policy.LoadPolicyFor(file, spec)
	var ve *policy.ValidationError
	switch {
	case errors.As(err, &ve):
		return policy.InvalidScore(err), nil
	case err != nil:
		return nil, Usage(err)
	}
	sc, err := policy.ScorePolicy(pol, spec, root)
	if err != nil {
		return nil, Usage(err)
	}
	return sc, nil
}

func (a *App) printScore(sc *policy.Score) {
	if !sc.Valid {
		fmt.Fprintf(a.Stdout, "invalid policy: %s\n", sc.Error)
		return
	}
	fmt.Fprintf(a.Stdout, "%-8s %9s %9s %9s\n", "axis", "precision", "recall", "f1")
	for _, ax := range policy.Axes {
		s := sc.Axes[ax]
		fmt.Fprintf(a.Stdout, "%-8s %9.4f %9.4f %9.4f\n", ax, s.Precision, s.Recall, s.F1)
	}
	if s := sc.Network; s != nil {
		fmt.Fprintf(a.Stdout, "%-8s %9.4f %9.4f %9.4f\n", "network", s.Precision, s.Recall, s.F1)
	}
	if sc.SensitiveCoverage != nil {
		fmt.Fprintf(a.Stdout, "sensitive exposure coverage: %.4f\n", *sc.SensitiveCoverage)
	}
}

// PrintJSON writes v to stdout as one line of JSON (no HTML escaping).
func (a *App) PrintJSON(v any) error {
	enc := json.NewEncoder(a.Stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
