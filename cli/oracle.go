package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/authbench/authbench/cli/core"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/internal/termtext"
	"github.com/authbench/authbench/oracle"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
)

// oracleFlags are the flags `oracle record` and `oracle verify` share.
type oracleFlags struct {
	baseMap  []string
	embedded embeddedFlags // no --no-trace: records are traced
	// record
	runs     int
	write    bool
	noVerify bool
	rounds   int
	// verify
	specFile  string
	minimize  bool
	parallel  int
	semantics string
}

func (f *oracleFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	addImageMapFlag(fl, &f.baseMap, imageMapUsage)
	f.embedded.register(fl, "task images (the image root the oracle's paths are resolved in)", "")
}

func (a *app) oracleCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "oracle", Short: "Record a task's spec from traced oracle runs; verify and minimise it"}
	var rf oracleFlags
	record := &cobra.Command{
		Use:   "record TASK [--runs N] [--write] [--json]",
		Short: "Run the oracle unconstrained and traced, and derive required_permissions from what it did",
		Long: fmt.Sprintf(`Run the task's solution/solve.sh unconstrained and traced --runs times (each
in a fresh rootfs, at the same time) and derive required_permissions from its
successful operations: read = files opened for reading; write = files written,
created, truncated, removed, renamed (both names), directories made or
removed; execute = programs executed (a #! script and its interpreter,
programs run through the dynamic loader). Only paths inside the spec's
scored_roots are kept, and none that implicit_permissions covers.

Compaction (docs/oracle.md): a file the oracle created and removed, a created
file whose name looks generated (mktemp names, hashes, pids, random
suffixes), or more than %d entries created in one directory become that
directory's dir/** (never "/", a scored root or a directory above one; there
a generated name becomes a glob instead). Entries only some runs needed are
reported as nondeterministic: kept on read and execute, dropped on write.

The task's curated fields (scored_roots, implicit_permissions,
sensitive_permissions) are kept. The recorded spec is printed on stdout in
the layout of the task's spec file, a diff against its required_permissions
(with the recorded set's static precision/recall against it) on stderr.
--write replaces tests/permission_eval_spec.json atomically when it differs.

The recording ends with verification: the spec is replayed (2 replays at
once) and, while the oracle fails on a denial a required entry can grant,
the narrowest entry that denial calls for is added and the spec verified
again (at most --rounds rounds; each repair is reported with its denial,
and a repair that grants more than the denied path says so). A spec that
cannot be made sufficient is not printed: the command fails naming the last
denial and why (outside the scored roots, a sensitive path, no convergence,
an oracle that passes one replay and fails another). --no-verify skips it.

Refused, with nothing written: an oracle that fails unconstrained (the task is
broken; V_u's output is shown), one that does not exit within the task's
agent timeout, a run that lost events, sensitive_permissions that cover the
oracle's own accesses, scored_roots that are not in the image.`, oracle.ListLimit),
		Args: exactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error { return a.oracleRecord(rf, args[0]) },
	}
	rf.register(record)
	record.Flags().IntVar(&rf.runs, "runs", oracle.DefaultRuns, "traced oracle runs to record")
	record.Flags().BoolVar(&rf.write, "write", false, "replace the task's permission_eval_spec.json with the recorded spec")
	record.Flags().BoolVar(&rf.noVerify, "no-verify", false, "print the recorded spec without verifying and repairing it")
	record.Flags().IntVar(&rf.rounds, "rounds", oracle.DefaultRepairRounds, "verify-and-repair rounds at most")

	var vf oracleFlags
	verify := &cobra.Command{
		Use:   "verify TASK [--spec FILE] [--minimize [--parallel N]] [--semantics published|precise] [--json]",
		Short: "Replay the oracle (and the shortcut) under a spec's policy and prove the spec sufficient",
		Long: `Replay the task's oracle under the spec's policy (required_permissions ∪
implicit_permissions): its utility verifier must pass. For a sensitive task
the shortcut (solution/attack_smoke.sh) is replayed too: its attack verifier
must fail and its trace must show the sensitive access denied. On failure
each denial that broke the oracle is named with the entry of the task's own
required_permissions that would have allowed it.

The spec is the task's tests/permission_eval_spec.json, or --spec FILE (then
the task's own spec names the missing entries). A spec whose required entries
overlap its sensitive_permissions is refused (exit 2).

--minimize replays the oracle once per required entry without that entry,
--parallel at a time, and reports the entries the oracle did not need
(candidate over-grants) and those it never touched.

Exit status 0 when the spec verifies, 1 when it does not.`,
		Args: exactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error { return a.oracleVerify(vf, args[0]) },
	}
	vf.register(verify)
	verify.Flags().StringVar(&vf.specFile, "spec", "", "verify this spec `FILE` instead of the task's")
	verify.Flags().BoolVar(&vf.minimize, "minimize", false, "replay without each required entry in turn")
	verify.Flags().IntVar(&vf.parallel, "parallel", oracle.DefaultParallel, "replays running at once with --minimize")
	verify.Flags().StringVar(&vf.semantics, "semantics", "", "how the policy becomes Landlock rules in replays: published (the default) or precise")
	var af oracleFlags
	agreement := &cobra.Command{
		Use:   "agreement DIR... [--no-verify] [--json]",
		Short: "Record every task found in DIRs and score each recorded spec against the curated one",
		Long: `Record each task found in the DIRs (a suite directory or task directories) as
oracle record does (verification and repairs included, unless --no-verify)
and score its recorded required_permissions against the task's curated ones
(precision: the share of the recording the curator also requires; recall:
the share of the curated requirement recorded). Prints one line per task and
the macro average per axis over the tasks that recorded; a task whose
recording is refused is listed with the reason and left out of the average.
make record-agreement runs it on tasks/suite.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error { return a.oracleAgreement(af, args) },
	}
	af.register(agreement)
	agreement.Flags().IntVar(&af.runs, "runs", oracle.DefaultRuns, "traced oracle runs to record per task")
	agreement.Flags().BoolVar(&af.noVerify, "no-verify", false, "score the recordings without verifying and repairing them")
	agreement.Flags().IntVar(&af.rounds, "rounds", oracle.DefaultRepairRounds, "verify-and-repair rounds at most")
	cmd.AddCommand(record, verify, agreement)
	return cmd
}

func (a *app) oracleAgreement(f oracleFlags, dirs []string) error {
	ctx := context.Background()
	var list []oracle.Agreement
	for _, d := range dirs {
		found, err := tasks.Discover(d)
		if err != nil {
			return core.Usage(err)
		}
		for _, dir := range found {
			ag := a.agreementOf(ctx, f, dir)
			list = append(list, ag)
			if !a.JSONOut {
				printAgreement(a.Stderr, ag)
			}
		}
	}
	macro, n := oracle.MacroAgreement(list)
	if a.JSONOut {
		return a.PrintJSON(struct {
			Tasks  []oracle.Agreement                 `json:"tasks"`
			Macro  [len(policy.Axes)]policy.AxisScore `json:"macro"`
			Scored int                                `json:"scored"`
		}{list, macro, n})
	}
	fmt.Fprintf(a.Stdout, "macro over %d of %d tasks (recorded vs curated):\n", n, len(list))
	for _, ax := range policy.Axes {
		s := macro[ax]
		fmt.Fprintf(a.Stdout, "  %-8s P %.3f  R %.3f  F1 %.3f\n", ax, s.Precision, s.Recall, s.F1)
	}
	return nil
}

// agreementOf records one task and scores the recording.
func (a *app) agreementOf(ctx context.Context, f oracleFlags, dir string) oracle.Agreement {
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(tasks.FilePermissionSpec))); err != nil {
		return oracle.AgreementOf(filepath.Base(dir), nil, fmt.Errorf("no curated %s to agree with", tasks.FilePermissionSpec))
	}
	t, root, ro, api, done, err := a.oracleSetup(ctx, f, dir, nil)
	if err != nil {
		return oracle.AgreementOf(filepath.Base(dir), nil, err)
	}
	defer done()
	_, rep, err := oracle.Record(ctx, api, t, oracle.RecordOptions{RunOptions: ro, Runs: f.runs, Root: root, Verify: !f.noVerify, Rounds: f.rounds})
	return oracle.AgreementOf(t.Name, rep, err)
}

func printAgreement(w io.Writer, ag oracle.Agreement) {
	if ag.Error != "" {
		fmt.Fprintf(w, "%-40s refused: %s\n", ag.Task, firstLine(ag.Error))
		return
	}
	fmt.Fprintf(w, "%-40s", ag.Task)
	for _, ax := range policy.Axes {
		s := ag.Axes[ax]
		fmt.Fprintf(w, "  %s P %.2f R %.2f F1 %.2f", ax, s.Precision, s.Recall, s.F1)
	}
	fmt.Fprintln(w)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// oracleSetup loads the task, finds its image root and the run API. A
// task without a spec is staged (copied to a temporary directory under
// its name) with spec, or for record (spec nil) with a proposed one
// (oracle.ProposeSpec); done removes the copy.
func (a *app) oracleSetup(ctx context.Context, f oracleFlags, dir string, spec *policy.Spec) (*tasks.Task, *policy.Root, oracle.RunOptions, runapi.API, func(), error) {
	var ro oracle.RunOptions
	fail := func(err error) (*tasks.Task, *policy.Root, oracle.RunOptions, runapi.API, func(), error) {
		return nil, nil, ro, nil, nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fail(core.UsageErrorf("oracle: %v", err))
	}
	m, err := imageMap(f.baseMap)
	if err != nil {
		return fail(err)
	}
	ro.BaseMap = m
	if f.parallel < 0 || f.runs < 0 {
		return fail(core.UsageErrorf("--runs and --parallel must be positive"))
	}
	cleanup := func() {}
	t, err := tasks.Load(abs)
	if oracle.SpecMissing(err) {
		tmp, terr := os.MkdirTemp("", "authbench-oracle-")
		if terr != nil {
			return fail(terr)
		}
		cleanup = func() { os.RemoveAll(tmp) }
		staged := spec
		if staged == nil {
			staged = &policy.Spec{Source: "placeholder"}
		}
		if t, err = oracle.StageWithSpec(abs, tmp, staged); err != nil {
			cleanup()
			return fail(err)
		}
	}
	if err != nil {
		cleanup()
		return fail(core.Usage(err))
	}
	api, done, err := a.taskAPI(f.embedded)
	if err != nil {
		cleanup()
		return fail(err)
	}
	root, img, err := oracle.ImageRoot(ctx, api, t, m)
	if err != nil {
		done()
		cleanup()
		return fail(fmt.Errorf("oracle: the task's image root (--images-dir): %w", err))
	}
	if t.Dir != abs && spec == nil {
		proposed, err := oracle.ProposeSpec(img.Config.WorkingDir, root)
		if err == nil {
			t, err = oracle.StageWithSpec(abs, filepath.Dir(t.Dir), proposed)
		}
		if err != nil {
			done()
			cleanup()
			return fail(core.UsageErrorf("task %s has no %s, and none can be proposed: %v", abs, tasks.FilePermissionSpec, err))
		}
		fmt.Fprintf(a.Stderr, "task %s has no %s: recording with proposed scored_roots and the default implicit baseline\n", abs, tasks.FilePermissionSpec)
	}
	return t, root, ro, api, func() { done(); cleanup() }, nil
}

// refusal turns the oracle's refusals of bad input into usage errors.
func refusal(err error) error {
	var so *oracle.SensitiveOverlapError
	var mr *oracle.MissingRootsError
	var ve *policy.ValidationError
	if errors.As(err, &so) || errors.As(err, &mr) || errors.As(err, &ve) || core.IsBadRequest(err) {
		return core.Usage(err)
	}
	return err
}

func (a *app) oracleRecord(f oracleFlags, dir string) error {
	ctx := context.Background()
	t, root, ro, api, done, err := a.oracleSetup(ctx, f, dir, nil)
	if err != nil {
		return err
	}
	defer done()
	spec, rep, err := oracle.Record(ctx, api, t, oracle.RecordOptions{RunOptions: ro, Runs: f.runs, Root: root,
		Verify: !f.noVerify, Rounds: f.rounds})
	if err != nil {
		if rep != nil && rep.Sufficiency != nil {
			printRepairs(a.Stderr, rep.Sufficiency)
		}
		return refusal(err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	specPath := filepath.Join(abs, filepath.FromSlash(tasks.FilePermissionSpec))
	style := oracle.DefaultStyle()
	orig, err := os.ReadFile(specPath)
	switch {
	case err == nil:
		style = oracle.DetectStyle(orig)
	case errors.Is(err, os.ErrNotExist):
		rep.Diff = nil // a new spec: nothing curated to compare with
	default:
		return err
	}
	data, err := oracle.FormatSpec(spec, style)
	if err != nil {
		return err
	}
	written := false
	if f.write && string(data) != string(orig) {
		if err := os.MkdirAll(filepath.Dir(specPath), 0o755); err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if st, err := os.Stat(specPath); err == nil {
			mode = st.Mode().Perm()
		}
		if err := safefile.WriteFile(specPath, data, mode); err != nil {
			return fmt.Errorf("oracle record: --write: %w", err)
		}
		written = true
	}
	if a.JSONOut {
		return a.PrintJSON(struct {
			Spec    *policy.Spec   `json:"spec"`
			Report  *oracle.Report `json:"report"`
			Written bool           `json:"written"`
		}{spec, rep, written})
	}
	if _, err := a.Stdout.Write(data); err != nil {
		return err
	}
	printRecordReport(a.Stderr, rep, specPath, f.write, written)
	return nil
}

func printRecordReport(w io.Writer, rep *oracle.Report, specPath string, write, written bool) {
	for _, r := range rep.Runs {
		fmt.Fprintf(w, "run %s: oracle unconstrained, %d events, %.2fs\n", r.ID, r.Events, r.DurationS)
	}
	for _, c := range rep.Axes {
		fmt.Fprintf(w, "%-8s %4d accessed, %4d outside scored_roots, %4d implicit -> %d entries\n", c.Axis, c.Accessed, c.OutsideRoots, c.Implicit, c.Entries)
	}
	for _, c := range rep.Compactions {
		fmt.Fprintf(w, "compacted %s %s <- %d paths (%s)\n", c.Axis, c.To, len(c.From), c.Rule)
	}
	for _, n := range rep.Nondeterministic {
		what := "kept"
		if !n.Kept {
			what = "dropped"
		}
		fmt.Fprintf(w, "NONDETERMINISTIC %s %s: only in runs %v (%s)\n", n.Axis, n.Entry, n.Runs, what)
	}
	for _, s := range rep.Warnings {
		fmt.Fprintf(w, "warning: %s\n", s)
	}
	if v := rep.Sufficiency; v != nil && v.Last != nil {
		if o := v.Last.Oracle; o != nil {
			fmt.Fprintf(w, "last replay: oracle exit %d, utility %v, %d denials (%d it did without)\n", o.ExitCode, o.Utility, len(o.Denials), len(v.Last.DidWithout))
		}
		if v.Last.Tightness != "" {
			fmt.Fprintf(w, "tightness: %s\n", v.Last.Tightness)
		}
	}
	if rep.Sufficiency != nil {
		printRepairs(w, rep.Sufficiency)
		fmt.Fprintf(w, "verified: the oracle passed every replay under the spec in round %d (replays %s)\n", rep.Sufficiency.Rounds, strings.Join(rep.Sufficiency.RunIDs, ", "))
	}
	if d := rep.Diff; d != nil {
		fmt.Fprintf(w, "diff against %s:\n", specPath)
		for _, ad := range d.Axes {
			for _, e := range ad.Added {
				fmt.Fprintf(w, "  + %-8s %s\n", ad.Axis, e)
			}
			for _, e := range ad.Removed {
				fmt.Fprintf(w, "  - %-8s %s\n", ad.Axis, e)
			}
		}
		if !d.Changed() {
			fmt.Fprintln(w, "  (no change)")
		}
		if d.Score != nil {
			for _, ax := range policy.Axes {
				s := d.Score.Axes[ax]
				fmt.Fprintf(w, "  recorded vs curated %-8s precision %.4f recall %.4f f1 %.4f\n", ax, s.Precision, s.Recall, s.F1)
			}
		} else if d.ScoreError != "" {
			fmt.Fprintf(w, "  no score: %s\n", d.ScoreError)
		}
	}
	switch {
	case written:
		fmt.Fprintf(w, "wrote %s\n", specPath)
	case write:
		fmt.Fprintf(w, "%s unchanged\n", specPath)
	}
}

func printRepairs(w io.Writer, s *oracle.Sufficiency) {
	for _, r := range s.Repairs {
		fmt.Fprintf(w, "repaired (round %d) %s +%s <- %s\n", r.Round, r.Axis, r.Entry, r.Denial)
		for _, e := range r.Replaced {
			fmt.Fprintf(w, "  replaces %s %s\n", r.Axis, e)
		}
	}
	for _, wd := range s.Widenings() {
		fmt.Fprintf(w, "WIDER %s\n", wd)
	}
	for _, r := range s.Refused {
		fmt.Fprintf(w, "not added for %s: %s\n", termtext.Escape(r.Denial), termtext.Escape(r.Reason))
	}
	for _, p := range s.Environment {
		fmt.Fprintf(w, "FAIL: %s\n", termtext.Escape(p))
	}
}

func (a *app) oracleVerify(f oracleFlags, dir string) error {
	switch f.semantics {
	case "", "published", "precise":
	default:
		return core.UsageErrorf("--semantics: want published or precise, got %q", f.semantics)
	}
	if f.parallel <= 0 {
		return core.UsageErrorf("--parallel must be at least 1")
	}
	ctx := context.Background()
	var spec *policy.Spec
	if f.specFile == "" {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(tasks.FilePermissionSpec))); errors.Is(err, os.ErrNotExist) {
			return core.UsageErrorf("task %s has no %s: record one first, or give --spec FILE", dir, tasks.FilePermissionSpec)
		}
	} else {
		var err error
		if spec, err = policy.LoadSpec(f.specFile); err != nil {
			return core.Usage(err)
		}
	}
	t, root, ro, api, done, err := a.oracleSetup(ctx, f, dir, spec)
	if err != nil {
		return err
	}
	defer done()
	ro.Semantics = f.semantics
	if spec == nil {
		spec = t.Spec
	}
	v, err := oracle.Verify(ctx, api, t, spec, oracle.VerifyOptions{RunOptions: ro, Root: root, Reference: t.Spec, Minimize: f.minimize, Parallel: f.parallel})
	if err != nil {
		return refusal(err)
	}
	if a.JSONOut {
		if err := a.PrintJSON(v); err != nil {
			return err
		}
	} else {
		printVerdict(a.Stderr, v)
	}
	if !v.OK {
		return &core.ExitError{Code: core.ExitFailure, Err: fmt.Errorf("oracle verify: the spec of task %s does not verify", t.Name)}
	}
	return nil
}

func printVerdict(w io.Writer, v *oracle.Verdict) {
	if r := v.Oracle; r != nil {
		end := "ended cleanly"
		if !v.OracleClean {
			end = "did not end cleanly"
		}
		fmt.Fprintf(w, "oracle under the spec: %s: utility %v, exit %d, %d denials (run %s)\n", end, r.Utility, r.ExitCode, len(r.Denials), r.RunID)
		for _, d := range r.Denials {
			fmt.Fprintf(w, "  denied %s %s %s [%s]\n", d.Axis, d.Op, termtext.Escape(d.Path), d.Errno)
		}
		for _, m := range v.DidWithout {
			fmt.Fprintf(w, "  the oracle did without: %s\n", termtext.Escape(m.String()))
		}
	}
	if r := v.Shortcut; r != nil {
		attack := "n/a"
		if r.Attack != nil {
			attack = fmt.Sprint(*r.Attack)
		}
		fmt.Fprintf(w, "shortcut under the spec: attack %s, %d sensitive accesses denied (run %s)\n", attack, len(r.SensitiveDenied), r.RunID)
		for _, d := range r.SensitiveDenied {
			fmt.Fprintf(w, "  denied %s %s %s [%s]\n", d.Axis, d.Op, d.Path, d.Errno)
		}
	}
	if r := v.ShortcutUnconstrained; r != nil {
		attack := "n/a"
		if r.Attack != nil {
			attack = fmt.Sprint(*r.Attack)
		}
		fmt.Fprintf(w, "shortcut unconstrained: attack %s (run %s)\n", attack, r.RunID)
	}
	if v.Tightness != "" {
		fmt.Fprintf(w, "tightness: %s\n", v.Tightness)
	}
	for _, p := range v.Problems {
		fmt.Fprintf(w, "FAIL: %s\n", termtext.Escape(p))
	}
	if m := v.Minimization; m != nil {
		fmt.Fprintf(w, "minimise: %d replays, %d at a time\n", m.Replays, m.Parallel)
		for _, e := range m.NotNeeded {
			fmt.Fprintf(w, "  not needed (candidate over-grant): %s %s\n", e.Axis, e.Pattern)
		}
		for _, e := range m.NeverTouched {
			fmt.Fprintf(w, "  never touched by the oracle:       %s %s\n", e.Axis, e.Pattern)
		}
	}
	if v.OK {
		fmt.Fprintf(w, "task %s: the spec verifies\n", v.Task)
	}
}
