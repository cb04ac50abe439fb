package policy

import (
	"encoding/json"
	"fmt"
	"sort"
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
	// SensitiveCoverage is the sensitive exposure coverage; nil when the
	// spec has no sensitive_permissions.
	SensitiveCoverage *float64
}

// InvalidScore is the score of a policy that failed validation.
func InvalidScore(err error) *Score { return &Score{Error: err.Error()} }

// MarshalJSON writes {"valid": true, "read": {...}, "write": {...},
// "execute": {...}[, "sensitive_exposure_coverage": x]}, or
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
		Coverage *float64   `json:"sensitive_exposure_coverage"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*s = Score{Valid: v.Valid, Error: v.Error, SensitiveCoverage: v.Coverage}
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
func ScorePolicy(pol *Policy, spec *Spec, root *Root) (*Score, error) {
	sc := &Score{Valid: true}
	var num, den int
	for _, a := range Axes {
		ax, err := newAxisScorer(spec, root, a)
		if err != nil {
			return nil, err
		}
		granted := ax.expand(pol.Get(a))
		required := ax.expand(spec.Required.Get(a))
		if spec.Sensitive != nil {
			sens := ax.expand(spec.Sensitive.Get(a))
			num += granted.intersect(sens)
			den += len(sens)
		}
		ax.removeImplicit(granted, spec.Implicit.Get(a))
		ax.removeImplicit(required, spec.Implicit.Get(a))
		sc.Axes[a] = metrics(granted, required)
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

func metrics(granted, required pathSet) AxisScore {
	hit := granted.intersect(required)
	var s AxisScore
	switch {
	case len(granted) > 0:
		s.Precision = float64(hit) / float64(len(granted))
	case len(required) == 0:
		s.Precision = 1
	}
	s.Recall = 1
	if len(required) > 0 {
		s.Recall = float64(hit) / float64(len(required))
	}
	if s.Precision+s.Recall > 0 {
		s.F1 = 2 * s.Precision * s.Recall / (s.Precision + s.Recall)
	}
	return s
}

// pathSet is a set of clean absolute paths.
type pathSet map[string]struct{}

func (s pathSet) intersect(o pathSet) int {
	n := 0
	for p := range s {
		if _, ok := o[p]; ok {
			n++
		}
	}
	return n
}

// candidate is a path of the candidate set, split once for matching.
type candidate struct {
	path string
	segs []string
}

// axisScorer holds the candidate set of one axis.
type axisScorer struct {
	root       *Root
	exec       bool
	candidates []candidate
}

func newAxisScorer(spec *Spec, root *Root, a Axis) (*axisScorer, error) {
	ax := &axisScorer{root: root, exec: a == Execute}
	if ax.exec {
		if err := ax.checkExecuteRoots(spec); err != nil {
			return nil, err
		}
	}
	set := pathSet{}
	add := func(p string) {
		if ax.exec {
			p = root.Realpath(p)
		}
		set[p] = struct{}{}
	}
	for _, sr := range spec.ScoredRoots.Get(a) {
		ax.collect(sr.Base(), add)
	}
	for _, req := range spec.Required.Get(a) {
		if req.IsExact() {
			add(req.Base())
		}
	}
	ax.candidates = make([]candidate, 0, len(set))
	for p := range set {
		ax.candidates = append(ax.candidates, candidate{path: p, segs: splitPath(p)})
	}
	sort.Slice(ax.candidates, func(i, j int) bool { return ax.candidates[i].path < ax.candidates[j].path })
	return ax, nil
}

// collect adds the scored root dir's files (or the file itself).
func (ax *axisScorer) collect(sr string, add func(string)) {
	keep := func(p string) {
		if !ax.exec || ax.root.isExecutable(p) {
			add(p)
		}
	}
	st, err := ax.root.Stat(sr)
	switch {
	case err != nil:
	case st.IsDir():
		ax.root.walkFiles(sr, keep)
	default:
		keep(sr)
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

// expand returns the paths that patterns grant on this axis.
func (ax *axisScorer) expand(patterns []Pattern) pathSet {
	out := pathSet{}
	for _, p := range patterns {
		q, ok := ax.resolve(p)
		if !ok {
			continue
		}
		matched := false
		for _, c := range ax.candidates {
			if q.matchSegments(c.segs) {
				out[c.path] = struct{}{}
				matched = true
			}
		}
		if !matched && p.IsExact() && !ax.root.IsDir(q.Base()) {
			out[q.Base()] = struct{}{}
		}
	}
	return out
}

// removeImplicit deletes from set every path an implicit pattern matches.
func (ax *axisScorer) removeImplicit(set pathSet, implicit []Pattern) {
	for _, p := range implicit {
		q, ok := ax.resolve(p)
		if !ok {
			continue
		}
		for path := range set {
			if q.Match(path) {
				delete(set, path)
			}
		}
	}
}
