package oracle

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"sync"

	"github.com/authbench/authbench/netproxy/netpolicy"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
)

// DefaultRuns is how many times Record runs the oracle.
const DefaultRuns = 2

// RecordOptions tune Record.
type RecordOptions struct {
	RunOptions
	// Runs is how many traced oracle runs to record (default DefaultRuns);
	// they run at the same time.
	Runs int
	// Root is the task image's root filesystem (ImageRoot): names are
	// resolved in it, scored roots checked against it and the diff scored
	// over it. Without it, paths are taken as the kernel named them.
	Root *policy.Root
	// Verify ends the recording with MakeSufficient: the recorded spec is
	// verified, and repaired while a denial calls for an entry, within
	// Rounds rounds (default DefaultRepairRounds).
	Verify bool
	Rounds int
}

// RunInfo is one run behind a report.
type RunInfo struct {
	ID        string  `json:"id"`
	Agent     string  `json:"agent"`
	Source    string  `json:"policy_source"`
	DurationS float64 `json:"duration_s"`
	Events    int     `json:"events"`
}

// AxisCounts says what the filters did on one axis, over all runs.
type AxisCounts struct {
	Axis         string `json:"axis"`
	Accessed     int    `json:"accessed"`
	OutsideRoots int    `json:"outside_scored_roots"`
	Implicit     int    `json:"implicit"`
	Entries      int    `json:"entries"`
}

// Report is what Record saw and decided.
type Report struct {
	Task             string             `json:"task"`
	Runs             []RunInfo          `json:"runs"`
	Axes             []AxisCounts       `json:"axes"`
	Compactions      []Compaction       `json:"compactions"`
	Nondeterministic []Nondeterministic `json:"nondeterministic"`
	// Diff compares the recorded required_permissions with the task's.
	Diff *Diff `json:"diff,omitempty"`
	// Network is the recorded network axis (the hosts the oracle
	// connected to), for a task whose spec declares it.
	Network []string `json:"network,omitempty"`
	// Warnings are things a curator should look at.
	Warnings []string `json:"warnings"`
	// Sufficiency is how the spec passed verify (RecordOptions.Verify).
	Sufficiency *Sufficiency `json:"sufficiency,omitempty"`
	// Dropped are recorded entries left out because, enforced under the
	// run's semantics, they would grant a sensitive file (verification
	// then shows whether the oracle needed them).
	Dropped []DroppedEntry `json:"dropped_for_sensitive,omitempty"`
}

// DroppedEntry is a recorded entry left out of the spec, with the
// sensitive files it would grant.
type DroppedEntry struct {
	Axis   string                  `json:"axis"`
	Entry  string                  `json:"entry"`
	Grants []policy.SensitiveGrant `json:"grants"`
}

// Record runs the task's oracle unconstrained and traced opts.Runs
// times, each in a fresh rootfs, and returns the task's spec with
// required_permissions replaced by what the runs needed (the curated
// fields are kept), and a report. It refuses (error, no spec) when an
// oracle run fails, times out or loses events, when the spec's
// sensitive_permissions cover the oracle's own accesses, and when a
// scored root is neither in the image nor made by the oracle.
func Record(ctx context.Context, api runapi.API, t *tasks.Task, opts RecordOptions) (*policy.Spec, *Report, error) {
	if t.Spec == nil {
		return nil, nil, fmt.Errorf("record task %s: the task has no permission spec to keep scored_roots and implicit_permissions from", t.Name)
	}
	n := opts.Runs
	if n <= 0 {
		n = DefaultRuns
	}
	reps, err := atOnce(n, func() (*replay, error) { return recordingRun(ctx, api, t, opts.RunOptions) })
	if err != nil {
		return nil, nil, err
	}
	var env Env
	if opts.Root != nil {
		env = RootEnv{opts.Root}
	}
	rep := &Report{Task: t.Name, Compactions: []Compaction{}, Nondeterministic: []Nondeterministic{}, Warnings: []string{}}
	rc := deriveRuns(t, reps, env, rep)
	if len(rc.overlaps) > 0 {
		return nil, rep, &SensitiveOverlapError{Task: t.Name, Overlaps: dedupOverlaps(rc.overlaps), Where: "oracle's own accesses"}
	}
	if opts.Root != nil {
		if err := checkScoredRoots(t, opts.Root, rc.created, rep); err != nil {
			return nil, rep, err
		}
	}
	rc.warn(t, env, rep)
	merged, nd := Merge(rc.perRun)
	rep.Nondeterministic = nd
	rep.Compactions = sortedCompactions(rc.logs)
	spec, err := requiredSpec(t.Spec, merged, rc.counts)
	if err != nil {
		return nil, rep, err
	}
	rep.Axes = rc.counts
	if t.Spec.Network.Declared {
		spec.Network.Required = recordedNetwork(reps, t.Spec.Network)
		rep.Network = policy.HostStrings(spec.Network.Required)
	}
	if opts.Root != nil {
		dropSensitiveGrants(spec, opts.Root, opts.Semantics, rep)
	}
	out, err := finishRecorded(ctx, api, t, spec, opts, rep)
	if err != nil {
		return nil, rep, err
	}
	rep.Diff = DiffRequired(out.Required, t.Spec, opts.Root)
	return out, rep, nil
}

// recording is what a task's recording runs add up to, before merging.
type recording struct {
	counts   []AxisCounts
	perRun   [][len(policy.Axes)][]string // each run's compacted paths per axis
	logs     map[string]*Compaction
	overlaps []Overlap
	created  map[string]bool // files any run created
	workDirs map[string]bool // directories any run worked in
	listings map[string]bool // scored roots a run listed (not recorded)
}

// deriveRuns derives each run's accesses (filtered to the scored roots,
// implicit permissions left out, compacted) and adds them up; each
// run's summary goes to rep.
func deriveRuns(t *tasks.Task, reps []*replay, env Env, rep *Report) *recording {
	rc := &recording{counts: make([]AxisCounts, len(policy.Axes)), perRun: make([][len(policy.Axes)][]string, len(reps)),
		logs: map[string]*Compaction{}, created: map[string]bool{}, workDirs: map[string]bool{}, listings: map[string]bool{}}
	for i, r := range reps {
		rep.Runs = append(rep.Runs, runInfo(r))
		acc := Derive(r.Events, env)
		rc.overlaps = append(rc.overlaps, sensitiveOverlaps(t.Spec, acc, r.Result)...)
		in := CompactInput{Created: acc.Created, Removed: acc.Removed, Roots: t.Spec.ScoredRoots}
		for _, ax := range policy.Axes {
			f := FilterPaths(acc.Sorted(ax), t.Spec.ScoredRoots.Get(ax), t.Spec.Implicit.Get(ax), env)
			in.Paths[ax] = f.Kept
			if ax == policy.Read {
				var dropped []string
				in.Paths[ax], dropped = DropRootListings(f.Kept, acc.Listed, t.Spec.ScoredRoots.Get(ax))
				for _, d := range dropped {
					rc.listings[d] = true
				}
			}
			rc.counts[ax].Accessed += len(acc.Paths[ax])
			rc.counts[ax].OutsideRoots += len(f.OutsideRoots)
			rc.counts[ax].Implicit += len(f.Implicit)
		}
		for p := range acc.Created {
			rc.created[p] = true
		}
		for _, d := range WorkingDirs(r.Events) {
			rc.workDirs[d] = true
		}
		var log []Compaction
		rc.perRun[i], log = Compact(in)
		addCompactions(rc.logs, log)
	}
	return rc
}

// warn adds the recording's warnings to rep: directories worked in
// outside the read and write scored roots, scored roots listed.
func (rc *recording) warn(t *tasks.Task, env Env, rep *Report) {
	for _, d := range sortedKeys(rc.workDirs) {
		if !InScoredRoots(d, t.Spec.ScoredRoots.Get(policy.Write), env) && !InScoredRoots(d, t.Spec.ScoredRoots.Get(policy.Read), env) {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("the oracle worked in %s (chdir), outside the read and write scored_roots: a scored root?", d))
		}
	}
	for _, d := range sortedKeys(rc.listings) {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("the oracle listed %s, a scored root: not recorded (a read entry for it would grant every file below it); verify shows whether it is needed", d))
	}
}

// sortedCompactions are the compactions of logs, by axis then target,
// each with its sources sorted.
func sortedCompactions(logs map[string]*Compaction) []Compaction {
	out := []Compaction{}
	for _, c := range logs {
		c.From = sortedKeys(boolKeysOf(c.From))
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Axis != b.Axis {
			return axisIndex(a.Axis) < axisIndex(b.Axis)
		}
		return a.To < b.To
	})
	return out
}

// requiredSpec is the task's spec with the merged paths as its required
// permissions; each axis's entry count goes to counts.
func requiredSpec(base *policy.Spec, merged [len(policy.Axes)][]string, counts []AxisCounts) (*policy.Spec, error) {
	spec := *base
	spec.Required = policy.Permissions{}
	for _, ax := range policy.Axes {
		ps, err := patterns(merged[ax])
		if err != nil {
			return nil, err
		}
		spec.Required[ax] = ps
		counts[ax].Axis = ax.String()
		counts[ax].Entries = len(ps)
	}
	return &spec, nil
}

// finishRecorded checks that the recorded spec is one the loader
// accepts and, with opts.Verify, makes it sufficient (MakeSufficient).
func finishRecorded(ctx context.Context, api runapi.API, t *tasks.Task, spec *policy.Spec, opts RecordOptions, rep *Report) (*policy.Spec, error) {
	data, err := FormatSpec(spec, DefaultStyle())
	if err != nil {
		return nil, err
	}
	if _, err := policy.ParseSpec(data, "recorded spec of "+t.Name); err != nil {
		return nil, fmt.Errorf("record task %s: the recorded spec is invalid: %w", t.Name, err)
	}
	if !opts.Verify {
		return spec, nil
	}
	vo := VerifyOptions{RunOptions: opts.RunOptions, Root: opts.Root}
	out, suff, err := MakeSufficient(ctx, api, t, spec, opts.Rounds, vo)
	rep.Sufficiency = suff
	if err != nil {
		return nil, err
	}
	for _, ax := range policy.Axes {
		rep.Axes[ax].Entries = len(out.Required.Get(ax))
	}
	return out, nil
}

// atOnce calls f n times at the same time and returns the results, or
// the errors joined (each message once).
func atOnce[T any](n int, f func() (T, error)) ([]T, error) {
	out := make([]T, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = f()
		}()
	}
	wg.Wait()
	if err := firstErrors(errs); err != nil {
		return nil, err
	}
	return out, nil
}

// runID matches the daemon's run ids.
var runID = regexp.MustCompile(`[0-9]{8}T[0-9]{6}-[0-9a-f]+`)

// firstErrors joins errs, each message once (runs failing alike fail
// with one message).
func firstErrors(errs []error) error {
	seen := map[string]bool{}
	var out []error
	for _, err := range errs {
		if err == nil {
			continue
		}
		msg := runID.ReplaceAllString(err.Error(), "")
		if !seen[msg] {
			seen[msg] = true
			out = append(out, err)
		}
	}
	return errors.Join(out...)
}

func boolKeysOf(list []string) map[string]bool {
	out := map[string]bool{}
	for _, s := range list {
		out[s] = true
	}
	return out
}

// recordedNetwork is the union over the runs of the hosts each connected
// to (RecordedHosts), sorted: like read and execute entries, a host only
// some runs needed is kept.
func recordedNetwork(reps []*replay, spec policy.NetworkSpec) []policy.HostPattern {
	var events []netpolicy.Event
	for _, r := range reps {
		events = append(events, r.Network...)
	}
	return RecordedHosts(events, spec)
}

// recordingRun runs the oracle unconstrained and checks the run can
// teach a spec.
func recordingRun(ctx context.Context, api runapi.API, t *tasks.Task, ro RunOptions) (*replay, error) {
	ro.Semantics = "" // an unconstrained run has no plan
	r, err := runTask(ctx, api, t, ro, runapi.SourceUnconstrained, runapi.AgentOracle, nil)
	if err != nil {
		return nil, err
	}
	if t.Spec.Network.Declared {
		// Mediated runs have a network log; others made no connection
		// the proxy saw.
		if data, err := runapi.ReadLog(ctx, api, r.Run.ID, runapi.LogNetwork); err == nil {
			if r.Network, err = ParseNetworkEvents(data); err != nil {
				return nil, fmt.Errorf("run %s: %w", r.Run.ID, err)
			}
		}
	}
	verifier, _ := runapi.ReadLog(ctx, api, r.Run.ID, runapi.LogVerifierUtility)
	stderr, _ := runapi.ReadLog(ctx, api, r.Run.ID, runapi.LogAgentStderr)
	if err := checkRecording(t, r, tail(string(verifier), 40), tail(string(stderr), 20)); err != nil {
		return nil, err
	}
	return r, nil
}

func runInfo(r *replay) RunInfo {
	return RunInfo{ID: r.Run.ID, Agent: r.Result.Agent, Source: r.Result.PolicySource, DurationS: r.Result.DurationS, Events: len(r.Events)}
}

// sensitiveOverlaps lists the oracle's accesses that the spec's
// sensitive_permissions cover: by pattern on the accessed path, and as
// the task run found them (by file identity too).
func sensitiveOverlaps(spec *policy.Spec, acc *Accesses, res *runapi.TaskResult) []Overlap {
	if spec.Sensitive == nil {
		return nil
	}
	var out []Overlap
	for _, ax := range policy.Axes {
		for _, p := range acc.Sorted(ax) {
			for _, s := range spec.Sensitive.Get(ax) {
				if s.Match(p) {
					out = append(out, Overlap{Axis: ax.String(), Path: p, Sensitive: s.String()})
					break
				}
			}
		}
	}
	for _, s := range res.TracedSensitive {
		out = append(out, Overlap{Axis: s.Axis.String(), Path: s.Path, Sensitive: s.Pattern})
	}
	return out
}

func dedupOverlaps(list []Overlap) []Overlap {
	seen := map[Overlap]bool{}
	var out []Overlap
	for _, o := range list {
		if !seen[o] {
			seen[o] = true
			out = append(out, o)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Axis != out[j].Axis {
			return axisIndex(out[i].Axis) < axisIndex(out[j].Axis)
		}
		return out[i].Path < out[j].Path
	})
	return out
}

// harnessDirs are made in every task run's rootfs before the agent
// starts (Harbor's layout: the agent's logs, and the oracle's writable
// copy of solution/), so scored roots there exist for the oracle.
var harnessDirs = []string{"/logs", "/solution"}

// checkScoredRoots refuses scored roots that are not in the image (nor
// in the harness's directories) and that no run created; a root the
// oracle made is a warning.
func checkScoredRoots(t *tasks.Task, root *policy.Root, created map[string]bool, rep *Report) error {
	var missing []string
	for _, ax := range policy.Axes {
		for _, r := range t.Spec.ScoredRoots.Get(ax) {
			if _, err := root.Stat(r.Base()); err == nil || slices.ContainsFunc(harnessDirs, func(h string) bool { return within(r.Base(), h) }) {
				continue
			}
			if created[r.Base()] {
				rep.Warnings = append(rep.Warnings, fmt.Sprintf("scored root %s (%s) is not in the image: the oracle creates it", r.Base(), ax))
				continue
			}
			missing = append(missing, ax.String()+" "+r.Base())
		}
	}
	if len(missing) > 0 {
		return &MissingRootsError{Task: t.Name, Roots: missing}
	}
	return nil
}

// dropSensitiveGrants removes from spec's required entries those whose
// rules, enforced under the semantics over root, grant a sensitive file
// (a listed directory's hierarchy, a missing file's nearest existing
// ancestor, a written file's parent), and reports each: an entry is
// never recorded on the strength of the oracle's access alone when its
// enforcement opens a sensitive file. Verification decides whether the
// oracle needed it; its repairs never add such an entry.
func dropSensitiveGrants(spec *policy.Spec, root *policy.Root, semantics string, rep *Report) {
	if spec.Sensitive == nil {
		return
	}
	chk := newGrantCheck(root, spec, semantics)
	for _, ax := range policy.Axes {
		var kept []policy.Pattern
		for _, p := range spec.Required.Get(ax) {
			gs := chk.grants(ax, p.String())
			if len(gs) == 0 {
				kept = append(kept, p)
				continue
			}
			rep.Dropped = append(rep.Dropped, DroppedEntry{Axis: ax.String(), Entry: p.String(), Grants: gs})
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("dropped %s %s: under %s semantics it grants sensitive %s %s (%q); verification shows whether the oracle needs it",
				ax, p, chk.semantics, gs[0].Axis, gs[0].Path, gs[0].Sensitive))
		}
		spec.Required[ax] = kept
	}
}
