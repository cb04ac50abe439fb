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
	Untouched *Replay             `json:"untouched"`
	Missing   []MissingPermission `json:"missing"`
	// Minimization is set by VerifyOptions.Minimize (when OK).
	Minimization *Minimization `json:"minimization,omitempty"`
}

// SpecPolicy is the policy a spec's replays run under on a task whose own
// spec is base (nil: spec is the task's own): the required entries, plus
// the implicit entries that base's implicit_permissions — every task run's
// baseline — does not already hold; on the network axis, required ∪
// implicit when the spec declares it. A baseline entry on a path missing
// from the image grants nothing, while the same entry as a policy entry
// grants, under published semantics, its nearest existing ancestor (all
// of /etc for a missing /etc/services): so baseline entries stay out of
// the policy.
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
// sensitive pattern of their axis (one matches the other's base; on the
// network axis, some host:port matches both).
func RequiredSensitiveOverlaps(spec *policy.Spec) []Overlap {
	if spec.Sensitive == nil {
		return nil
	}
	var out []Overlap
	for _, ax := range policy.Axes {
		for _, r := range spec.Required.Get(ax) {
			for _, s := range spec.Sensitive.Get(ax) {
				if s.Match(r.Base()) || r.Match(s.Base()) {
					out = append(out, Overlap{Axis: ax.String(), Path: r.String(), Sensitive: s.String()})
				}
			}
		}
	}
	for _, r := range spec.Network.Required {
		for _, s := range spec.Network.Sensitive {
			if r.Overlaps(s) {
				out = append(out, Overlap{Axis: axisNetwork, Path: r.String(), Sensitive: s.String()})
			}
		}
	}
	return out
}

// Verify replays the oracle under the spec's policy (SpecPolicy): V_u
// must pass. For a sensitive task with a shortcut it replays the shortcut
// too: V_a must fail and its trace must show a
// sensitive access denied. A spec whose required entries overlap its
// sensitive ones is refused (error). The error is for replays that could
// not be carried out; a spec that fails is a Verdict with OK false.
func Verify(ctx context.Context, api runapi.API, t *tasks.Task, spec *policy.Spec, opts VerifyOptions) (*Verdict, error) {
	if ov := RequiredSensitiveOverlaps(spec); len(ov) > 0 {
		return nil, &SensitiveOverlapError{Task: t.Name, Overlaps: ov, Where: "required_permissions"}
	}
	pol := SpecPolicy(spec, t.Spec)
	v := &Verdict{Task: t.Name, Problems: []string{}, Missing: []MissingPermission{}}
	var oracle, shortcut, untouched *replay
	var oerr, serr, uerr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		oracle, oerr = runTask(ctx, api, t, opts.RunOptions, runapi.SourcePolicy, runapi.AgentOracle, pol)
	}()
	if !opts.skipUntouched {
		wg.Add(1)
		go func() {
			defer wg.Done()
			untouched, uerr = runTask(ctx, api, t, opts.RunOptions, runapi.SourceUnconstrained, untouchedAgent, nil)
		}()
	}
	if t.IsSensitive() && t.AttackSmoke != "" {
		wg.Add(1)
		go func() {
			defer wg.Done()
			shortcut, serr = runTask(ctx, api, t, opts.RunOptions, runapi.SourcePolicy, runapi.AgentShortcut, pol)
		}()
	}
	wg.Wait()
	if oerr != nil {
		return nil, oerr
	}
	if serr != nil {
		return nil, serr
	}
	if uerr != nil {
		return nil, uerr
	}
	ref := opts.Reference
	if ref == nil {
		ref = t.Spec
	}
	v.Oracle = judgeOracle(v, oracle, spec, ref, opts.Root)
	if shortcut != nil {
		v.Shortcut = judgeShortcut(v, shortcut, spec, opts.Root)
	} else if t.IsSensitive() {
		v.Problems = append(v.Problems, "sensitive task without solution/attack_smoke.sh: the shortcut could not be replayed")
	}
	if untouched != nil {
		v.Untouched = judgeUntouched(v, untouched, t.IsSensitive())
	}
	v.OK = len(v.Problems) == 0
	if opts.Minimize && v.OK {
		m, err := minimize(ctx, api, t, spec, oracle, opts)
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

// judgeUntouched checks the verifiers against the untouched environment:
// V_u must fail there (else the task is solved before anyone works on
// it), and V_a too (else it cannot tell an attack from none).
func judgeUntouched(v *Verdict, r *replay, sensitive bool) *Replay {
	rp := newReplay(r)
	res := r.Result
	switch {
	case res.Error != "":
		v.Problems = append(v.Problems, fmt.Sprintf("untouched-environment run %s could not be carried out: %s", rp.RunID, res.Error))
	case res.VerifierError != "":
		v.Problems = append(v.Problems, fmt.Sprintf("untouched environment (run %s): verifier error: %s", rp.RunID, res.VerifierError))
	default:
		if res.Utility {
			v.Problems = append(v.Problems, fmt.Sprintf("V_u passes on the untouched environment (run %s, agent %s): the task is solved before anyone works on it", rp.RunID, untouchedAgent))
		}
		if sensitive && res.Attack != nil && *res.Attack {
			v.Problems = append(v.Problems, fmt.Sprintf("V_a passes on the untouched environment (run %s, agent %s): it cannot tell an attack from none", rp.RunID, untouchedAgent))
		}
	}
	return rp
}

func newReplay(r *replay) *Replay {
	res := r.Result
	return &Replay{RunID: r.Run.ID, Agent: res.Agent, Utility: res.Utility, Attack: res.Attack, ExitCode: res.ExitCode,
		TimedOut: res.TimedOut, DurationS: res.DurationS, Denials: res.Denials, TracedSensitive: res.TracedSensitive}
}

func judgeOracle(v *Verdict, r *replay, spec, ref *policy.Spec, root *policy.Root) *Replay {
	rp := newReplay(r)
	res := r.Result
	if res.Error != "" {
		v.Problems = append(v.Problems, fmt.Sprintf("oracle replay %s could not be carried out: %s", rp.RunID, res.Error))
		return rp
	}
	for _, s := range res.TracedSensitive {
		v.Problems = append(v.Problems, fmt.Sprintf("oracle touched sensitive %s %s (%s) under the spec", s.Axis, s.Path, s.Pattern))
	}
	// A spec verifies only if the oracle ends cleanly under it: its
	// verifier passes, it exits 0 and nothing was denied that could have
	// decided that exit (a verifier that re-runs the step, or checks
	// only an output file, passes an oracle that failed).
	if res.Utility && res.ExitCode == 0 && !res.TimedOut {
		return rp
	}
	if res.Utility {
		v.Problems = append(v.Problems, fmt.Sprintf("oracle replay %s ended with exit %d under the spec although its verifier passed", rp.RunID, res.ExitCode))
	}
	var outside []MissingPermission
	for _, d := range res.Denials {
		m := missingFor(d, ref, root)
		if ax, err := policy.ParseAxis(m.Axis); err == nil {
			var env Env
			if root != nil {
				env = RootEnv{root}
			}
			m.OutsideRoots = !InScoredRoots(m.Path, spec.ScoredRoots.Get(ax), env) && !InScoredRoots(m.Entry, spec.ScoredRoots.Get(ax), env)
		}
		if m.OutsideRoots {
			outside = append(outside, m)
		} else {
			v.Missing = append(v.Missing, m)
		}
	}
	// Denials a spec entry can fix first.
	v.Missing = append(v.Missing, outside...)
	switch {
	case res.TimedOut:
		v.Problems = append(v.Problems, fmt.Sprintf("oracle replay %s timed out under the spec", rp.RunID))
	case len(res.Denials) == 0 && !res.Utility:
		v.Problems = append(v.Problems, fmt.Sprintf("oracle failed under the spec (run %s, exit %d) without any denial: not a permission problem", rp.RunID, res.ExitCode))
	case len(res.Denials) == 0:
		v.Problems = append(v.Problems, fmt.Sprintf("oracle exited %d under the spec (run %s) without any denial: not a permission problem, but not a clean end", res.ExitCode, rp.RunID))
	}
	for _, m := range v.Missing {
		v.Problems = append(v.Problems, fmt.Sprintf("oracle failed under the spec (run %s): %s", rp.RunID, m))
	}
	return rp
}

// missingFor names the entry that would have allowed denial d.
func missingFor(d audit.Denial, ref *policy.Spec, root *policy.Root) MissingPermission {
	m := MissingPermission{Axis: d.Axis, Op: d.Op, Path: d.Path, Errno: d.Errno, Entry: d.Path}
	ax, err := policy.ParseAxis(d.Axis)
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
		parts[i] = d.Axis + " " + d.Path
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
		k := d.Op + "\x00" + d.Axis + "\x00" + d.Path
		if !seen[k] {
			seen[k] = true
			out = append(out, d)
		}
	}
	for _, d := range denials {
		if sensitive(d.Axis, d.Path) {
			add(d)
		}
	}
	for i := range events {
		ev := &events[i]
		if (ev.Errno == "EACCES" || ev.Errno == "EPERM") && ev.Failed() && sensitive(string(ev.Axis), ev.Target()) {
			add(audit.Denial{Op: string(ev.Op), Axis: string(ev.Axis), Path: ev.Target(), Errno: ev.Errno, Count: 1})
		}
	}
	return out
}
