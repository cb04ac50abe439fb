package cli

import (
	"errors"
	"fmt"
	"github.com/authbench/authbench/cli/core"
	"os"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
)

// scoreFlags are the flags of `authbench score`.
type scoreFlags struct {
	policyFile, specFile, rootDir string
	task, imagesDir               string
	baseMap                       []string
}

func (a *app) scoreCmd() *cobra.Command {
	var f scoreFlags
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
in --images-dir yet (needs root; --base-map as for task run).

An invalid policy is a result, not a usage error: it scores
{"valid": false, "error": "..."} and exits 0. An unreadable file, an
invalid spec or a bad root exits 2.`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			spec, root, err := a.scoreTarget(f)
			if err != nil {
				return err
			}
			sc, err := scorePolicyFile(f.policyFile, spec, root)
			if err != nil {
				return err
			}
			if a.JSONOut {
				return a.printJSON(sc)
			}
			a.printScore(sc)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.policyFile, "policy", "", "policy file (JSON with read, write, execute[, network])")
	fl.StringVar(&f.specFile, "spec", "", "task spec file (permission_eval_spec.json)")
	fl.StringVar(&f.rootDir, "root", "/", "environment root directory used as /")
	fl.StringVar(&f.task, "task", "", "score against the task `DIR`'s spec over its image's rootfs")
	fl.StringVar(&f.imagesDir, "images-dir", env.DefaultImagesDir, "task images, with --task")
	addImageMapFlag(fl, &f.baseMap, "with --task: "+imageMapUsage)
	return cmd
}

// scoreTarget is the spec and the root a score is computed over: the
// given files, or the task's spec and its image's rootfs.
func (a *app) scoreTarget(f scoreFlags) (*policy.Spec, *policy.Root, error) {
	if f.policyFile == "" || (f.specFile == "" && f.task == "") {
		return nil, nil, core.UsageErrorf("score needs --policy and --spec (or --task)")
	}
	if f.task == "" {
		spec, err := policy.LoadSpec(f.specFile)
		if err != nil {
			return nil, nil, core.Usage(err)
		}
		root, err := policy.NewRoot(f.rootDir)
		if err != nil {
			return nil, nil, core.UsageErrorf("--root: %v", err)
		}
		return spec, root, nil
	}
	if f.specFile != "" || f.rootDir != "/" {
		return nil, nil, core.UsageErrorf("score: --task takes the task's spec and image rootfs; give no --spec or --root")
	}
	t, err := tasks.Load(f.task)
	if err != nil {
		return nil, nil, core.UsageErrorf("--task: %v", err)
	}
	if t.Spec == nil {
		return nil, nil, core.UsageErrorf("--task: task %s has no permission spec", t.Name)
	}
	m, err := imageMap(f.baseMap)
	if err != nil {
		return nil, nil, err
	}
	if os.Geteuid() != 0 {
		return nil, nil, fmt.Errorf("score --task: building or reading task images needs root")
	}
	img, err := a.buildImage(&runapi.BuildRequest{Dir: t.Dir, BaseMap: m}, env.Store{Dir: f.imagesDir}, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("score --task %s: image: %w", t.Name, err)
	}
	root, err := policy.NewRoot(img.Rootfs)
	if err != nil {
		return nil, nil, fmt.Errorf("score --task %s: %w", t.Name, err)
	}
	return t.Spec, root, nil
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
		return nil, core.Usage(err)
	}
	sc, err := policy.ScorePolicy(pol, spec, root)
	if err != nil {
		return nil, core.Usage(err)
	}
	return sc, nil
}

func (a *app) printScore(sc *policy.Score) {
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
