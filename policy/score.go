package policy

import (
	"encoding/json"
	"fmt"
)

// AxisScore is precision, recall and F1 of one axis.
type AxisScore struct {
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
}

// Score is the static score of a policy against a spec.
type Score struct {
	// Valid is false when the policy (or the spec) is invalid; every
	// metric is then 0.
	Valid bool
	// Error says why the score is invalid.
	Error string
	// Axes holds the per-axis scores, indexed by Axis.
	Axes [len(Axes)]AxisScore
	// Network is the network axis's score; nil when the spec has no
	// required or sensitive network entry (NetworkSpec.Scored).
	Network *AxisScore
	// SensitiveCoverage is the sensitive exposure coverage; nil when the
	// spec has no sensitive_permissions.
	SensitiveCoverage *float64
}

// InvalidScore is the score of a policy that failed validation.
func InvalidScore(err error) *Score { return &Score{Error: err.Error()} }

// MarshalJSON writes {"valid": true, "read": {...}, "write": {...},
// "execute": {...}[, "network": {...}][, "sensitive_exposure_coverage":
// x]}, or
// {"valid": false, "error": "..."}.
func (s *Score) MarshalJSON() ([]byte, error) {
	if !s.Valid {
		return json.Marshal(struct {
			Valid bool   `json:"valid"`
			Error string `json:"error"`
		}{false, s.Error})
	}
	out := map[string]any{"valid": true}
	for _, a := range Axes {
		out[a.String()] = s.Axes[a]
	}
	if s.Network != nil {
		out[fieldNetwork] = *s.Network
	}
	if s.SensitiveCoverage != nil {
		out["sensitive_exposure_coverage"] = *s.SensitiveCoverage
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (s *Score) UnmarshalJSON(data []byte) error {
	var v struct {
		Valid    bool       `json:"valid"`
		Error    string     `json:"error"`
		Read     *AxisScore `json:"read"`
		Write    *AxisScore `json:"write"`
		Execute  *AxisScore `json:"execute"`
		Network  *AxisScore `json:"network"`
		Coverage *float64   `json:"sensitive_exposure_coverage"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*s = Score{Valid: v.Valid, Error: v.Error, Network: v.Network, SensitiveCoverage: v.Coverage}
	for a, ax := range map[Axis]*AxisScore{Read: v.Read, Write: v.Write, Execute: v.Execute} {
		if ax != nil {
			s.Axes[a] = *ax
		}
	}
	return nil
}

// ScorePolicy scores pol against spec over the environment root. The
// returned error is a *ValidationError of the spec when it is invalid in
// this environment (an execute requirement whose realpath lies outside
// every scored root).
//
// The candidate set is streamed, never stored (except the execute axis's
// realpaths, to merge the paths that resolve to one file): each candidate
// is matched against the policy, the requirement, the implicit and the
// sensitive patterns as the walk meets it, and only counts are kept.
//
// A policy with a "network" key scores as invalid against a spec that
// does not declare the network axis (NetworkSpec.Declared), as the
// published verifier rejects it.
func ScorePolicy(pol *Policy, spec *Spec, root *Root) (*Score, error) {
	if err := CheckPolicyAgainst(pol, spec); err != nil {
		return InvalidScore(err), nil
	}
	sc := &Score{Valid: true}
	var num, den int
	for _, a := range Axes {
		ax, err := newAxisScorer(pol, spec, root, a)
		if err != nil {
			return nil, err
		}
		t := ax.tally()
		if spec.Sensitive != nil {
			num += t.sensGranted
			den += t.sens
		}
		sc.Axes[a] = t.metrics()
	}
	if spec.Network.Scored() {
		t := networkTally(pol.Network, spec.Network)
		if spec.Sensitive != nil {
			num += t.sensGranted
			den += t.sens
		}
		m := t.metrics()
		sc.Network = &m
	}
	if spec.Sensitive != nil {
		cov := 0.0
		if den > 0 {
			cov = float64(num) / float64(den)
		}
		sc.SensitiveCoverage = &cov
	}
	return sc, nil
}

// axisTally holds the set sizes of one axis's score: A (granted) and Rq
// (required) after implicit removal, their intersection, and, before
// implicit removal, |A ∩ Sens| and |Sens|.
type axisTally struct {
	granted, required, hit int
	sensGranted, sens      int
}

func (t axisTally) metrics() AxisScore {
	var s AxisScore
	switch {
	case t.granted > 0:
		s.Precision = float64(t.hit) / float64(t.granted)
	case t.required == 0:
		s.Precision = 1
	}
	s.Recall = 1
	if t.required > 0 {
		s.Recall = float64(t.hit) / float64(t.required)
	}
	if s.Precision+s.Recall > 0 {
		s.F1 = 2 * s.Precision * s.Recall / (s.Precision + s.Recall)
	}
	return s
}

// patternList is one pattern list of an axis as the axis matches it, with
// which of its patterns matched at least one candidate.
type patternList struct {
	patterns []Pattern
	exact    []bool // the pattern as written names one path
	matched  []bool
}

func (ax *axisScorer) newPatternList(ps []Pattern) *patternList {
	l := &patternList{}
	for _, p := range ps {
		q, ok := ax.resolve(p)
		if !ok {
			continue
		}
		l.patterns = append(l.patterns, q)
		l.exact = append(l.exact, p.IsExact())
		l.matched = append(l.matched, false)
	}
	return l
}

// match reports whether a pattern of the list matches path, marking
// every pattern that does.
func (l *patternList) match(path string) bool {
	any := false
	for i, p := range l.patterns {
		if p.Match(path) {
			l.matched[i] = true
			any = true
		}
	}
	return any
}

// matchAny reports whether a pattern of the list matches path.
func (l *patternList) matchAny(path string) bool {
	for _, p := range l.patterns {
		if p.Match(path) {
			return true
		}
	}
	return false
}

// unmatchedExact is what an expansion adds for its exact patterns that
// matched no candidate: the path itself, unless it is an existing
// directory.
func (l *patternList) unmatchedExact(root *Root) map[string]struct{} {
	out := map[string]struct{}{}
	for i, p := range l.patterns {
		if l.exact[i] && !l.matched[i] && !root.IsDir(p.Base()) {
			out[p.Base()] = struct{}{}
		}
	}
	return out
}

// axisScorer scores one axis.
type axisScorer struct {
	root *Root
	exec bool
	spec *Spec
	axis Axis

	granted, required, implicit, sensitive *patternList
	t                                      axisTally
}

func newAxisScorer(pol *Policy, spec *Spec, root *Root, a Axis) (*axisScorer, error) {
	ax := &axisScorer{root: root, exec: a == Execute, spec: spec, axis: a}
	if ax.exec {
		if err := ax.checkExecuteRoots(spec); err != nil {
			return nil, err
		}
	}
	ax.granted = ax.newPatternList(pol.Get(a))
	ax.required = ax.newPatternList(spec.Required.Get(a))
	ax.implicit = ax.newPatternList(spec.Implicit.Get(a))
	if spec.Sensitive != nil {
		ax.sensitive = ax.newPatternList(spec.Sensitive.Get(a))
	}
	return ax, nil
}

// tally streams the axis's candidates through the pattern lists, then
// adds what the exact patterns that matched no candidate expand to.
func (ax *axisScorer) tally() axisTally {
	ax.eachCandidate(ax.count)
	extraGranted := ax.granted.unmatchedExact(ax.root)
	for p := range extraGranted {
		if !ax.implicit.matchAny(p) {
			ax.t.granted++
		}
	}
	if ax.sensitive != nil {
		for p := range ax.sensitive.unmatchedExact(ax.root) {
			ax.t.sens++
			if _, ok := extraGranted[p]; ok {
				ax.t.sensGranted++
			}
		}
	}
	// The required list needs no such step: its exact patterns are
	// candidates themselves.
	return ax.t
}

// count adds one candidate to the tally.
func (ax *axisScorer) count(c string) {
	g := ax.granted.match(c)
	if ax.sensitive != nil && ax.sensitive.match(c) {
		ax.t.sens++
		if g {
			ax.t.sensGranted++
		}
	}
	r := ax.required.matchAny(c)
	if !g && !r || ax.implicit.matchAny(c) {
		return
	}
	if g {
		ax.t.granted++
	}
	if r {
		ax.t.required++
	}
	if g && r {
		ax.t.hit++
	}
}

// eachCandidate calls fn once with every candidate of the axis: the files
// below its scored roots (execute: the executable ones, by realpath) and
// the required patterns that name one path, existing or not.
func (ax *axisScorer) eachCandidate(fn func(string)) {
	if ax.exec {
		seen := map[string]struct{}{}
		add := func(p string) {
			if _, ok := seen[p]; !ok {
				seen[p] = struct{}{}
				fn(p)
			}
		}
		for _, sr := range ax.spec.ScoredRoots.Get(Execute) {
			ax.root.eachExecutable(sr.Base(), add)
		}
		for _, req := range ax.spec.Required.Get(Execute) {
			if req.IsExact() {
				add(ax.root.Realpath(req.Base()))
			}
		}
		return
	}
	// Required exact paths not met by a walk are candidates too.
	pending := map[string]bool{}
	for _, req := range ax.spec.Required.Get(ax.axis) {
		if req.IsExact() {
			pending[req.Base()] = true
		}
	}
	visit := func(p string) {
		if pending[p] {
			delete(pending, p)
		}
		fn(p)
	}
	roots := ax.spec.ScoredRoots.Get(ax.axis)
	for i, sr := range roots {
		if !ax.root.walkedByAnother(sr.Base(), roots, i) {
			ax.root.eachFile(sr.Base(), visit)
		}
	}
	for p := range pending {
		fn(p)
	}
}

// checkExecuteRoots rejects execute requirements whose realpath lies
// outside the realpath of every execute scored root.
func (ax *axisScorer) checkExecuteRoots(spec *Spec) error {
	roots := make([]string, 0, len(spec.ScoredRoots[Execute]))
	for _, sr := range spec.ScoredRoots[Execute] {
		roots = append(roots, ax.root.Realpath(sr.Base()))
	}
	var ps problems
	for i, req := range spec.Required[Execute] {
		q, ok := ax.resolve(req)
		inside := false
		for _, r := range roots {
			inside = inside || (ok && isWithin(q.Base(), r))
		}
		if !inside {
			ps.add(fmt.Sprintf("%s.%s[%d]", fieldRequired, Execute, i),
				"%q resolves outside every scored root of %s.%s", req.String(), fieldRoots, Execute)
		}
	}
	return ps.err(spec.Source)
}

// resolve returns the pattern as the axis matches it: on the execute
// axis its base is replaced by its realpath. The published verifier
// resolves the base of "/**" to its own working directory, so on the
// execute axis "/**" matches nothing; ok is false for it.
func (ax *axisScorer) resolve(p Pattern) (Pattern, bool) {
	if !ax.exec {
		return p, true
	}
	if p.Recursive() && p.Base() == "/" {
		return Pattern{}, false
	}
	return p.withBase(ax.root.Realpath(p.Base())), true
}

// CheckPolicyAgainst returns a *ValidationError of the policy when it
// carries a "network" key and the spec does not declare the network
// axis: in the published format, where no spec has the axis, such a
// policy is invalid ("unknown key"), as the published verifier says.
func CheckPolicyAgainst(pol *Policy, spec *Spec) error {
	if pol.Network == nil || spec.Network.Declared {
		return nil
	}
	var ps problems
	ps.add(fieldNetwork, "unknown key (allowed: read, write, execute; the task's spec has no network axis)")
	source := pol.Source
	if source == "" {
		source = "policy"
	}
	return ps.err(source)
}
