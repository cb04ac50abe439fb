package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/authbench/authbench/cli/core"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/internal/termtext"
	"github.com/authbench/authbench/oracle"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
)

// specGap is one denial that broke a task's oracle under the task's own
// spec: an erratum of the dataset.
type specGap struct {
	Task  string `json:"task"`
	Dir   string `json:"dir"`
	Axis  string `json:"axis"`
	Op    string `json:"op"`
	Path  string `json:"path"`
	Real  string `json:"real,omitempty"`
	Errno string `json:"errno"`
	// Fix is what would let the oracle through: a required entry, or
	// "outside scored_roots" when only implicit_permissions could.
	Fix string `json:"fix"`
	// Round is the replay that called for it (1: the spec as published;
	// later rounds replay it with the earlier fixes added).
	Round int `json:"round,omitempty"`
	// Wider says how the fix grants more than the denied path, if it does.
	Wider string `json:"wider,omitempty"`
}

// errataReport is what `tasks errata` found in a dataset.
type errataReport struct {
	Tasks int       `json:"tasks"`
	Gaps  []specGap `json:"spec_gaps"`
	// Problems are the other reasons a task's spec does not verify (a
	// shortcut not blocked, an oracle failing without a denial), and the
	// tasks that could not be checked, one line each.
	Problems []string `json:"problems"`
}

func (a *app) tasksErrataCmd() *cobra.Command {
	var f oracleFlags
	cmd := &cobra.Command{
		Use:   "errata DIR... [--semantics published|precise] [--json]",
		Short: "Replay every task's oracle under the task's own spec and list the spec gaps as a table",
		Long: `Each DIR is a task directory or a suite of them. For every task with a spec,
the oracle is replayed under the task's own spec (required ∪ implicit), as
oracle verify does (the shortcut of a sensitive task, the shortcut without a
policy and an agent that does nothing are replayed too). The oracle must end
cleanly: exit 0, V_u passed, no denial that decided anything. While it does
not, the entry its deciding denial calls for is added and the oracle replayed
again (at most --rounds replays), so that every entry the spec lacks is
listed, one line of a table each (an erratum of the dataset), with the replay
round that found it; when the iteration stops first, the reason follows.
An entry that would grant a sensitive file under the replays' semantics, or
one the spec already holds, is never proposed. A task whose oracle does not
end cleanly is replayed unconstrained too: an oracle that fails without any
policy is an environment or oracle failure, reported as a problem with no
entry proposed, never a spec gap. Other reasons a spec does not
verify follow the table. Exit 1 when any task has a spec gap or another
problem.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return core.UsageErrorf("tasks errata: want at least one DIR")
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error { return a.tasksErrata(f, args) },
	}
	f.register(cmd)
	cmd.Flags().StringVar(&f.semantics, "semantics", "", "how the spec becomes Landlock rules in replays: published (the default) or precise")
	cmd.Flags().IntVar(&f.rounds, "rounds", oracle.DefaultErrataRounds, "oracle replays per task at most (each adds one entry)")
	return cmd
}

func (a *app) tasksErrata(f oracleFlags, args []string) error {
	switch f.semantics {
	case "", "published", "precise":
	default:
		return core.UsageErrorf("--semantics: want published or precise, got %q", f.semantics)
	}
	rep := errataReport{Gaps: []specGap{}, Problems: []string{}}
	for _, arg := range args {
		dirs, err := tasks.Discover(arg)
		if err != nil {
			return core.UsageErrorf("tasks errata: %v", err)
		}
		for _, dir := range dirs {
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(tasks.FilePermissionSpec))); errors.Is(err, os.ErrNotExist) {
				rep.Problems = append(rep.Problems, fmt.Sprintf("%s: no %s: nothing to check", dir, tasks.FilePermissionSpec))
				continue
			}
			rep.Tasks++
			if err := a.errataOf(f, dir, &rep); err != nil {
				rep.Problems = append(rep.Problems, fmt.Sprintf("%s: not checked: %v", dir, err))
			}
		}
	}
	if a.JSONOut {
		if err := a.PrintJSON(rep); err != nil {
			return err
		}
	} else {
		printErrata(a, &rep)
	}
	if len(rep.Gaps) > 0 || len(rep.Problems) > 0 {
		return &core.ExitError{Code: core.ExitFailure, Err: fmt.Errorf("tasks errata: %d spec gaps, %d other problems in %d tasks", len(rep.Gaps), len(rep.Problems), rep.Tasks)}
	}
	return nil
}

// errataOf replays the oracle of the task in dir under its spec until it
// ends cleanly (oracle.Errata) and adds every entry it lacked.
func (a *app) errataOf(f oracleFlags, dir string, rep *errataReport) error {
	ctx := context.Background()
	t, root, ro, api, done, err := a.oracleSetup(ctx, f, dir, nil)
	if err != nil {
		return err
	}
	defer done()
	ro.Semantics = f.semantics
	res, err := oracle.Errata(ctx, api, t, f.rounds, oracle.VerifyOptions{RunOptions: ro, Root: root, Reference: t.Spec})
	if err != nil {
		return refusal(err)
	}
	if len(res.Entries) > 0 || !res.Clean {
		if why := oracleFailsUnconstrained(ctx, api, t, ro.BaseMap); why != "" {
			rep.Problems = append(rep.Problems, fmt.Sprintf("%s: %s: an environment or oracle failure, not a spec gap (%d entries the replays under the spec called for are not proposed)", t.Name, why, len(res.Entries)))
			return nil
		}
	}
	gap := func(m oracle.MissingPermission) specGap {
		return specGap{Task: t.Name, Dir: dir, Axis: m.Axis, Op: m.Op, Path: m.Path, Real: m.Real, Errno: m.Errno}
	}
	for _, e := range res.Entries {
		g := gap(e.Denied)
		g.Axis, g.Round, g.Wider = e.Axis, e.Round, e.Widening
		g.Fix = fmt.Sprintf("required_permissions.%s %q", e.Axis, e.Entry)
		rep.Gaps = append(rep.Gaps, g)
	}
	if !res.Clean {
		for _, m := range res.Outside {
			g := gap(m)
			g.Round, g.Fix = res.Rounds, "outside scored_roots (only implicit_permissions could grant it)"
			rep.Gaps = append(rep.Gaps, g)
		}
		rep.Problems = append(rep.Problems, fmt.Sprintf("%s: the oracle does not end cleanly after %d replay(s) and %d added entries: %s", t.Name, res.Rounds, len(res.Entries), res.Stop))
	}
	for _, r := range res.Refused {
		rep.Problems = append(rep.Problems, fmt.Sprintf("%s: not proposed for %s: %s", t.Name, r.Denial, r.Reason))
	}
	for _, p := range res.Problems {
		rep.Problems = append(rep.Problems, t.Name+": "+p)
	}
	return nil
}

func printErrata(a *app, rep *errataReport) {
	tw := tabwriter.NewWriter(a.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tROUND\tAXIS\tOP\tPATH\tERRNO\tFIX")
	for _, g := range rep.Gaps {
		name := g.Path
		if g.Real != "" {
			name += " (" + g.Real + ")"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\n", g.Task, g.Round, g.Axis, g.Op, name, g.Errno, g.Fix)
	}
	tw.Flush()
	for _, g := range rep.Gaps {
		if g.Wider != "" {
			fmt.Fprintf(a.Stdout, "wider: %s %s: %s\n", g.Task, g.Fix, g.Wider)
		}
	}
	for _, p := range rep.Problems {
		fmt.Fprintf(a.Stdout, "problem: %s\n", p)
	}
	gapTasks := map[string]bool{}
	for _, g := range rep.Gaps {
		gapTasks[g.Task] = true
	}
	fmt.Fprintf(a.Stderr, "%d tasks checked: %d with spec gaps (%d gaps), %d other problems\n",
		rep.Tasks, len(gapTasks), len(rep.Gaps), len(rep.Problems))
}

// oracleFailsUnconstrained runs the task's oracle without a policy and
// says how it failed ("" when it passed, or when the run could not say):
// a spec gap is only a gap when the oracle passes unconstrained.
func oracleFailsUnconstrained(ctx context.Context, api runapi.API, t *tasks.Task, baseMap map[string]string) string {
	run, err := runapi.RunTask(ctx, api, &runapi.RunRequest{Task: &runapi.TaskRequest{
		Dir: t.Dir, PolicySource: runapi.SourceUnconstrained, Agent: runapi.AgentOracle, BaseMap: baseMap}})
	if err != nil || run.TaskResult == nil || run.TaskResult.Error != "" {
		return ""
	}
	res := run.TaskResult
	if res.Utility {
		return ""
	}
	why := fmt.Sprintf("the oracle fails unconstrained too (run %s, exit %d", run.ID, res.ExitCode)
	if res.VerifierError != "" {
		why += ", verifier error: " + termtext.Escape(firstLine(res.VerifierError))
	}
	return why + ")"
}
