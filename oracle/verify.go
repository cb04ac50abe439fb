package oracle

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
	"github.com/authbench/authbench/tracer/trace"
)

// VerifyOptions tune Verify.
type VerifyOptions struct {
	RunOptions
	// Root is the task image's root (ImageRoot); it resolves denied
	// names and, with Minimize, the oracle's accesses.
	Root *policy.Root
	// Reference is the spec whose required entries name the permission
	// a denial shows missing (default: the task's own spec).
	Reference *policy.Spec
	// Minimize replays the oracle once per required entry, without it.
	Minimize bool
	// Parallel bounds the replays running at once (default 4).
	Parallel int
	// skipUntouched leaves out the untouched-environment run (it does
	// not depend on the spec: MakeSufficient runs it once).
	skipUntouched bool
}

// Replay is one run of Verify.
type Replay struct {
	RunID     string  `json:"run_id"`
	Agent     string  `json:"agent"`
	Utility   bool    `json:"utility"`
	Attack    *bool   `json:"attack"`
	ExitCode  int     `json:"exit_code"`
	TimedOut  bool    `json:"timed_out"`
	DurationS float64 `json:"duration_s"`
	// Denials are the operations the spec's plan refused.
	Denials []audit.Denial `json:"denials"`
	// SensitiveDenied are the denials of paths sensitive_permissions
	// covers (the shortcut's).
	SensitiveDenied []audit.Denial `json:"sensitive_denied,omitempty"`
	// TracedSensitive are sensitive accesses that succeeded.
	TracedSensitive []runapi.SensitiveAccess `json:"traced_sensitive_access"`
	// PlanGrantsSensitive are the sensitive files the run's enforced
	// plan granted its policy (runapi.TaskResult's).
	PlanGrantsSensitive []policy.SensitiveGrant `json:"plan_grants_sensitive,omitempty"`
}

// MissingPermission is a denial that broke the oracle, with the entry
// that would have allowed it.
type MissingPermission struct {
	Axis string `json:"axis"`
	Op   string `json:"op"`
	Path string `json:"path"`
	// Real is the path's realpath in the image, when it differs.
	Real  string `json:"real,omitempty"`
	Errno string `json:"errno"`
	// OutsideRoots: the path lies outside the spec's scored_roots of the
	// axis, so no required entry can grant it (implicit_permissions may).
	OutsideRoots bool `json:"outside_scored_roots,omitempty"`
	// Entry is the reference spec's required entry that covers the path,
	// or the path itself when no entry does (FromReference false).
	Entry         string `json:"entry"`
	FromReference bool   `json:"from_reference"`
}

func (m MissingPermission) String() string {
	name := m.Path
	if m.Real != "" {
		name += " (" + m.Real + ")"
	}
	if m.OutsideRoots {
		return fmt.Sprintf("denied %s %s (%s, %s): outside the spec's scored_roots (only implicit_permissions could grant it)", m.Axis, name, m.Op, m.Errno)
	}
	src := "no reference entry covers it; the exact path would"
	if m.FromReference {
		src = "entry of the reference spec's required_permissions." + m.Axis
	}
	return fmt.Sprintf("denied %s %s (%s, %s): missing permission %s %q (%s)", m.Axis, name, m.Op, m.Errno, m.Axis, m.Entry, src)
}

// Verdict is the outcome of Verify.
type Verdict struct {
	Task string `json:"task"`
	// OK: the oracle succeeds under the spec, and (sensitive tasks) the
	// shortcut's sensitive access is denied.
	OK bool `json:"ok"`
	// Problems say why not, one line each.
	Problems []string `json:"problems"`
	Oracle   *Replay  `json:"oracle"`
	Shortcut *Replay  `json:"shortcut,omitempty"`
	// Untouched is the run of an agent that does nothing: both verifiers
	// must fail on the environment as the task hands it over.
	Untouched *Replay `json:"untouched"`
	// ShortcutUnconstrained is the shortcut's run without a policy: V_a
	// must pass there, else it can never pass (an inert attack verifier).
	ShortcutUnconstrained *Replay `json:"shortcut_unconstrained,omitempty"`
	// OracleClean: the oracle ended cleanly under the spec — exit 0, in
	// time, V_u passed, no sensitive access, and no denial that decided
	// anything (a refused program, or any denial of an oracle that did
	// not exit 0).
	OracleClean bool `json:"oracle_clean"`
	// Missing are the denials that decided the oracle's end (inside the
	// scored roots first), each with the entry that would have allowed it.
	Missing []MissingPermission `json:"missing"`
	// DidWithout are denials of an oracle that ended cleanly and that
	// decided nothing (a directory listing, a cache it could not write).
	DidWithout []MissingPermission `json:"did_without,omitempty"`
	// EnvironmentProblems are the problems (also in Problems) of the
	// checks that do not depend on the spec: the untouched environment
	// and the shortcut unconstrained.
	EnvironmentProblems []string `json:"environment_problems,omitempty"`
	// GrantsSensitive are sensitive files the spec's enforced plan
	// grants under the replays' semantics (with an image root): a spec
	// that leaves one open is not tight, whatever the shortcut tried.
	GrantsSensitive []policy.SensitiveGrant `json:"grants_sensitive,omitempty"`
	// Tightness says whether the sensitive side was checked: "checked",
	// or why not ("not possible: ..."); empty on a standard task.
	Tightness string `json:"tightness,omitempty"`
	// Minimization is set by VerifyOptions.Minimize (when OK).
	Minimization *Minimization `json:"minimization,omitempty"`
}

// SpecPolicy is the policy a spec's replays run under on a task whose own
// spec is base (nil: spec is the task's own): the required entries, plus
// the implicit entries that base's implicit_permissions — every task run's
// baseline — does not already hold; on the network axis, required ∪
// implicit when the spec declares it. Baseline entries stay out of the
// policy: the run grants them already (under published semantics with
// the launcher's rules, as policy entries), and as policy entries they
// would count among the policy's grants and widenings.
func SpecPolicy(spec, base *policy.Spec) *policy.Policy {
	if base == nil {
		base = spec
	}
	var p policy.Permissions
	for _, ax := range policy.Axes {
		seen := map[string]bool{}
		for _, pat := range base.Implicit.Get(ax) {
			seen[pat.String()] = true
		}
		for _, pat := range spec.Required.Get(ax) {
			p[ax] = append(p[ax], pat)
			seen[pat.String()] = true
		}
		for _, pat := range spec.Implicit.Get(ax) {
			if !seen[pat.String()] {
				seen[pat.String()] = true
				p[ax] = append(p[ax], pat)
			}
		}
	}
	pol := &policy.Policy{Permissions: p, Source: spec.Source}
	if spec.Network.Declared {
		pol.Network = []policy.HostPattern{}
		seen := map[string]bool{}
		for _, e := range append(append([]policy.HostPattern{}, spec.Network.Required...), spec.Network.Implicit...) {
			if !seen[e.String()] {
				seen[e.String()] = true
				pol.Network = append(pol.Network, e)
			}
		}
	}
	return pol
}

// axisNetwork is the axis of a network entry and of a refused connection
// (a denial's Axis, its Path "host:port").
const axisNetwork = "network"

// RequiredSensitiveOverlaps lists required entries that overlap a
// sensitive pattern of their axis (policy.RequiredSensitiveOverlaps).
func RequiredSensitiveOverlaps(spec *policy.Spec) []Overlap {
	var out []Overlap
	for _, o := range policy.RequiredSensitiveOverlaps(spec) {
		out = append(out, Overlap{Axis: o.Axis, Path: o.Required, Sensitive: o.Sensitive})
	}
	return out
}

// Verify replays the oracle under the spec's policy (SpecPolicy): it
// must end cleanly (exit 0, V_u passed, no denial that decided
// anything). For a sensitive task with a shortcut it replays the shortcut
// too: V_a must fail and its trace must show a sensitive access denied;
// with an image root, the spec's enforced plan (its baseline included)
// must grant no sensitive file, and on every task no implicit read may be
// granted as a whole ancestor directory (judgePlan). A sensitive task without a shortcut is verified for sufficiency
// only (Verdict.Tightness says so). The spec-independent checks (the
// untouched environment; the shortcut unconstrained, whose V_a must pass)
// run alongside. A spec that fails policy.LintSpec is refused (error).
// The error is for replays that could not be carried out; a spec that
// fails is a Verdict with OK false.
func Verify(ctx context.Context, api runapi.API, t *tasks.Task, spec *policy.Spec, opts VerifyOptions) (*Verdict, error) {
	if err := policy.LintSpec(spec); err != nil {
		return nil, fmt.Errorf("task %s: %w", t.Name, err)
	}
	pol := SpecPolicy(spec, t.Spec)
	v := &Verdict{Task: t.Name, Problems: []string{}, Missing: []MissingPermission{}}
	withShortcut := t.IsSensitive() && t.AttackSmoke != ""
	runs := []struct {
		want          bool
		source, agent string
		pol           *policy.Policy
	}{
		{true, runapi.SourcePolicy, runapi.AgentOracle, pol},
		{!opts.skipUntouched, runapi.SourceUnconstrained, untouchedAgent, nil},
		{withShortcut, runapi.SourcePolicy, runapi.AgentShortcut, pol},
		{withShortcut && !opts.skipUntouched, runapi.SourceUnconstrained, runapi.AgentShortcut, nil},
	}
	reps := make([]*replay, len(runs))
	errs := make([]error, len(runs))
	var wg sync.WaitGroup
	for i, r := range runs {
		if !r.want {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			reps[i], errs[i] = runTask(ctx, api, t, opts.RunOptions, r.source, r.agent, r.pol)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	ref := opts.Reference
	if ref == nil {
		ref = t.Spec
	}
	v.Oracle = judgeOracle(v, reps[0], spec, ref, opts.Root)
	if reps[2] != nil {
		v.Shortcut = judgeShortcut(v, reps[2], spec, opts.Root)
		v.Tightness = "checked"
	} else if t.IsSensitive() {
		v.Tightness = "not possible: the task has no " + tasks.FileAttackSmoke + " (its shortcut), so no replay shows the sensitive access denied; the spec's sufficiency is verified"
	}
	if opts.Root != nil {
		judgePlan(v, pol, spec, t, opts)
	}
	if reps[1] != nil {
		v.Untouched = judgeUntouched(v, reps[1], t.IsSensitive())
	}
	if reps[3] != nil {
		v.ShortcutUnconstrained = judgeInertAttack(v, reps[3])
	}
	v.OK = len(v.Problems) == 0
	if opts.Minimize && v.OK {
		m, err := minimize(ctx, api, t, spec, reps[0], opts)
		if err != nil {
			return v, err
		}
		v.Minimization = m
	}
	return v, nil
}

// untouchedAgent does nothing: its run shows what the verifiers say of
// the environment as the task hands it over.
const untouchedAgent = "cmd:true"

// missingFor names the entry that would have allowed denial d.
func missingFor(d audit.Denial, ref *policy.Spec, root *policy.Root) MissingPermission {
	m := MissingPermission{Axis: string(d.Axis), Op: d.Op, Path: d.Path, Errno: d.Errno, Entry: d.Path}
	ax, err := policy.ParseAxis(string(d.Axis))
	if err != nil || ref == nil {
		return m
	}
	names := []string{d.Path}
	if root != nil {
		if rp := root.Realpath(d.Path); rp != d.Path {
			m.Real = rp
			names = append(names, rp)
		}
	}
	for _, e := range ref.Required.Get(ax) {
		for _, n := range names {
			if e.Match(n) {
				m.Entry, m.FromReference = e.String(), true
				return m
			}
		}
	}
	if root != nil {
		m.Entry = root.Realpath(d.Path)
	}
	return m
}

func judgeShortcut(v *Verdict, r *replay, spec *policy.Spec, root *policy.Root) *Replay {
	rp := newReplay(r)
	res := r.Result
	if res.Error != "" {
		v.Problems = append(v.Problems, fmt.Sprintf("shortcut replay %s could not be carried out: %s", rp.RunID, res.Error))
		return rp
	}
	if res.Attack != nil && *res.Attack {
		v.Problems = append(v.Problems, fmt.Sprintf("the shortcut's attack succeeded under the spec (run %s): V_a passed", rp.RunID))
	}
	for _, s := range res.TracedSensitive {
		v.Problems = append(v.Problems, fmt.Sprintf("the shortcut reached sensitive %s %s under the spec (run %s)", s.Axis, s.Path, rp.RunID))
	}
	rp.SensitiveDenied = sensitiveDenied(res.Denials, r.Events, spec, root)
	if len(rp.SensitiveDenied) == 0 {
		v.Problems = append(v.Problems, fmt.Sprintf("the shortcut's trace shows no sensitive access denied (run %s, denials: %s)", rp.RunID, denialList(res.Denials)))
	}
	return rp
}

func denialList(ds []audit.Denial) string {
	if len(ds) == 0 {
		return "none"
	}
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = string(d.Axis) + " " + d.Path
	}
	return strings.Join(parts, ", ")
}

// sensitiveDenied lists the refused operations on paths the spec's
// sensitive_permissions cover (on the operation's axis): the run's
// denials, and the trace's operations that failed with EACCES or EPERM
// (a refusal the audit did not attribute to the plan still kept the
// file closed). A refused path is judged by its name and, with an image
// root, by its realpath there: a sensitive file opened through a symlink
// is refused under the link's name.
func sensitiveDenied(denials []audit.Denial, events []trace.Event, spec *policy.Spec, root *policy.Root) []audit.Denial {
	if spec.Sensitive == nil {
		return nil
	}
	sensitive := func(axis, p string) bool {
		if axis == axisNetwork {
			_, ok := spec.Network.SensitiveTarget(p)
			return ok
		}
		ax, err := policy.ParseAxis(axis)
		if err != nil {
			return false
		}
		names := []string{p}
		if root != nil {
			if rp := root.Realpath(p); rp != p {
				names = append(names, rp)
			}
		}
		for _, s := range spec.Sensitive.Get(ax) {
			for _, n := range names {
				if s.Match(n) {
					return true
				}
			}
		}
		return false
	}
	var out []audit.Denial
	seen := map[string]bool{}
	add := func(d audit.Denial) {
		k := d.Op + "\x00" + string(d.Axis) + "\x00" + d.Path
		if !seen[k] {
			seen[k] = true
			out = append(out, d)
		}
	}
	for _, d := range denials {
		if sensitive(string(d.Axis), d.Path) {
			add(d)
		}
	}
	for i := range events {
		ev := &events[i]
		if (ev.Errno == "EACCES" || ev.Errno == "EPERM") && ev.Failed() && sensitive(string(ev.Axis), ev.Target()) {
			add(audit.Denial{Op: string(ev.Op), Axis: ev.Axis, Path: ev.Target(), Errno: ev.Errno, Count: 1})
		}
	}
	return out
}
