package cli

import (
	"errors"
	"fmt"
	"github.com/authbench/authbench/cli/core"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/sandbox"
)

func (a *app) policyPlanCmd() *cobra.Command {
	var pf core.PlanFlags
	var rootDir string
	cmd := &cobra.Command{
		Use:   "plan --policy FILE [--baseline default|none|SPEC.json] [--semantics precise|published] [--root DIR]",
		Short: "Print the Landlock rule plan of a policy and every place where it is wider than the policy",
		Long: `Compile a policy (plus a runtime baseline) into the Landlock rules that
authbench exec would enforce, against the environment root DIR (default /).

With --semantics precise (the default), read patterns grant read_file (and
read_dir on directories); write patterns write_file and truncate, and on
directories the make_*/remove_*/refer rights; a write target that does not
exist yet gets creation rights on its nearest existing ancestor directory
(never /); execute patterns grant execute and read_file. Globs are expanded
now: files created later that match are not covered.

With --semantics published, the policy is enforced the way the published
AuthBench launcher did: a read of a missing path reads its closest existing
ancestor; a write grants read_dir, write_file, truncate, refer and every
make_*/remove_* right on the parent directory (closest existing ancestor if
missing, never /) plus write_file and truncate on the file when it exists;
dir/** is the directory itself. The baseline is compiled precisely in both.

A pattern whose path goes through a symlink grants the link's target; unless
a pattern of the same axis names the target, this is listed as wider (with
the link and the target), and a link owned by a user other than root, or in
a directory such a user may write, is a loud warning: someone may have
planted it. --refuse-symlinks makes it an error instead. A pattern holding
a NUL byte cannot be enforced and is an error.

Every plan also holds what any program needs to start (the dynamic
loader, shared libraries, /dev/null); the default baseline adds name-service
and time-zone files, certificates, locales, terminfo, /proc, the terminal,
/dev/{zero,full,random,urandom}, a scratch /tmp and /dev/shm (read-write,
not executable) and /bin/sh.

The output lists the rules, where they are wider than the policy, and
warnings (patterns that match nothing; write access to the whole tree;
planted symlinks).
With --json: {"plan": {...}, "enforcement": {...}} where enforcement says
which rights this kernel's Landlock ABI cannot enforce.`,
		Args: noArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			pl, err := a.compilePlan(pf, rootDir)
			if err != nil {
				return err
			}
			enf := sandbox.KernelEnforcement()
			if a.JSONOut {
				return a.PrintJSON(map[string]any{"plan": pl, "enforcement": enf})
			}
			a.ReportPlanWarnings(pl)
			return writePlan(a.Stdout, pl, pf.Policy, enf)
		},
	}
	pf.Register(cmd)
	cmd.Flags().StringVar(&rootDir, "root", "/", "environment root `DIR` to compile against (a rootfs, or /)")
	return cmd
}

// noArgs refuses positional arguments with a usage error.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return core.UsageErrorf("%s: unexpected argument %q", cmd.CommandPath(), args[0])
	}
	return nil
}

// compilePlan loads the policy and baseline and compiles the plan. Bad
// input (a missing or invalid file, a pattern too broad to expand) is a
// usage error.
func (a *app) compilePlan(pf core.PlanFlags, rootDir string) (*policy.Plan, error) {
	if pf.Policy == "" {
		return nil, core.UsageErrorf("--policy is required")
	}
	pol, err := policy.LoadPolicy(pf.Policy)
	if err != nil {
		return nil, core.Usage(err)
	}
	base, err := policy.LoadBaseline(pf.Baseline)
	if err != nil {
		return nil, core.Usage(err)
	}
	root, err := policy.NewRoot(rootDir)
	if err != nil {
		return nil, core.UsageErrorf("--root: %v", err)
	}
	sem, err := policy.ParseSemantics(pf.Semantics)
	if err != nil {
		return nil, core.UsageErrorf("--semantics: %v", err)
	}
	pl, err := policy.CompilePlanWith(pol, base, root, policy.PlanOptions{Semantics: sem, RefuseSymlinks: pf.RefuseSymlinks})
	if err != nil {
		if errors.Is(err, policy.ErrTooBroad) || errors.Is(err, policy.ErrUnenforceablePattern) || errors.Is(err, policy.ErrSymlinkTarget) {
			return nil, core.Usage(fmt.Errorf("%s: %w", pf.Policy, err))
		}
		return nil, err
	}
	a.Log.Info("plan compiled", zap.String("policy", pf.Policy), zap.String("baseline", pl.Baseline),
		zap.String("semantics", string(pl.Semantics)),
		zap.String("root", pl.Root), zap.Int("rules", len(pl.Rules)), zap.Int("wider", len(pl.Wider)),
		zap.Int("warnings", len(pl.Warnings)))
	return pl, nil
}

// writePlan prints a plan for people.
func writePlan(w io.Writer, pl *policy.Plan, source string, enf sandbox.Enforcement) error {
	fmt.Fprintf(w, "plan of %s against %s, baseline %s, semantics %s\n", source, pl.Root, pl.Baseline, pl.Semantics)
	if enf.KernelABI == 0 {
		fmt.Fprintf(w, "this kernel has no Landlock: nothing of the plan would be enforced\n")
	} else {
		fmt.Fprintf(w, "this kernel: Landlock ABI %d; rights it cannot enforce: %s\n", enf.KernelABI, enf.Unenforced)
	}
	fmt.Fprintf(w, "\nrules (%d):\n", len(pl.Rules))
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	for _, r := range pl.Rules {
		kind := "file"
		if r.Dir {
			kind = "dir/**"
		}
		var from []string
		for _, s := range r.From {
			from = append(from, s.Origin+" "+s.Axis+" "+s.Pattern)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", r.Path, kind, r.Access, strings.Join(from, "; "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nwider than the policy (%d):\n", len(pl.Wider))
	for _, x := range pl.Wider {
		link := ""
		if x.Link != "" {
			link = fmt.Sprintf(" (link %s → %s)", x.Link, x.Target)
		}
		fmt.Fprintf(w, "  %s %s → %s on %s%s: %s\n", x.Axis, x.Pattern, x.Kind, x.Path, link, x.Detail)
	}
	if len(pl.Warnings) > 0 {
		fmt.Fprintf(w, "\nwarnings (%d):\n", len(pl.Warnings))
		for _, x := range pl.Warnings {
			mark := ""
			if x.Loud {
				mark = "!!! "
			}
			fmt.Fprintf(w, "  %s%s %s %s: %s\n", mark, x.Code, x.Axis, x.Pattern, x.Message)
		}
	}
	return nil
}
