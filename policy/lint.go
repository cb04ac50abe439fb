package policy

import "fmt"

// SpecOverlap is a required entry that a sensitive entry of the same
// axis overlaps (one matches the other's base; on the network axis, some
// host:port matches both): the spec asks the oracle to reach what it
// marks as never to be reached.
type SpecOverlap struct {
	Axis string `json:"axis"`
	// Required and Sensitive are the two entries; RequiredIndex and
	// SensitiveIndex their places in their lists.
	Required       string `json:"required"`
	RequiredIndex  int    `json:"required_index"`
	Sensitive      string `json:"sensitive"`
	SensitiveIndex int    `json:"sensitive_index"`
}

func (o SpecOverlap) String() string {
	return fmt.Sprintf("%s.%s[%d] %q overlaps %s.%s[%d] %q", fieldRequired, o.Axis, o.RequiredIndex, o.Required,
		fieldSensitive, o.Axis, o.SensitiveIndex, o.Sensitive)
}

// RequiredSensitiveOverlaps lists the spec's required entries that
// overlap a sensitive entry of their axis.
func RequiredSensitiveOverlaps(spec *Spec) []SpecOverlap {
	var out []SpecOverlap
	if spec.Sensitive != nil {
		for _, a := range Axes {
			for i, r := range spec.Required.Get(a) {
				for j, s := range spec.Sensitive.Get(a) {
					if patternOps.overlaps(r, s) {
						out = append(out, SpecOverlap{Axis: a.String(), Required: r.String(), RequiredIndex: i, Sensitive: s.String(), SensitiveIndex: j})
					}
				}
			}
		}
	}
	for i, r := range spec.Network.Required {
		for j, s := range spec.Network.Sensitive {
			if r.Overlaps(s) {
				out = append(out, SpecOverlap{Axis: fieldNetwork, Required: r.String(), RequiredIndex: i, Sensitive: s.String(), SensitiveIndex: j})
			}
		}
	}
	return out
}

// LintSpec returns a *ValidationError when spec's required entries
// overlap its sensitive ones (one problem per overlap, at the required
// entry's field, naming the sensitive entry), nil otherwise. Every command
// that judges a spec (spec check, tasks check, oracle verify and record,
// tasks errata, the bench's spec-derived sources) refuses it with this
// one message.
func LintSpec(spec *Spec) error {
	var ps problems
	for _, o := range RequiredSensitiveOverlaps(spec) {
		ps.add(fmt.Sprintf("%s.%s[%d]", fieldRequired, o.Axis, o.RequiredIndex),
			"%q overlaps %s.%s[%d] %q: the oracle would have to reach what the spec marks sensitive", o.Required, fieldSensitive, o.Axis, o.SensitiveIndex, o.Sensitive)
	}
	src := spec.Source
	if src == "" {
		src = "spec"
	}
	return ps.err(src)
}

// SpecWarnings are the spec's problems that the published verifier
// tolerates — it scores such a spec, and every run (unconstrained, a
// command's) works with it — so they are warnings, never a refusal:
//   - a read or write requirement outside every scored root of its axis
//     (scoring still counts it: an exact path is a candidate of its own,
//     a pattern matches none);
//   - an execute requirement outside every scored execute root, compared
//     lexically (scoring compares realpaths and refuses one that stays
//     outside: the static score of that spec is then invalid);
//   - a sensitive entry outside every scored root of its axis (static
//     scoring never sees it among the candidates).
func SpecWarnings(spec *Spec) []Problem {
	var out []Problem
	for _, a := range []Axis{Read, Write, Execute} {
		for i, req := range spec.Required[a] {
			if withinAnyRoot(req.Base(), spec.ScoredRoots[a]) {
				continue
			}
			msg := fmt.Sprintf("%q is outside every scored root of %s", req.String(), joinField(fieldRoots, a.String()))
			if a == Execute {
				msg += " (scoring compares realpaths; unless a symlink leads it inside, it cannot be scored)"
			}
			out = append(out, Problem{Field: fmt.Sprintf("%s.%s[%d]", fieldRequired, a, i), Msg: msg})
		}
	}
	if spec.Sensitive == nil {
		return out
	}
	for _, a := range []Axis{Read, Write, Execute} {
		for i, p := range spec.Sensitive[a] {
			if !withinAnyRoot(p.Base(), spec.ScoredRoots[a]) {
				out = append(out, Problem{Field: fmt.Sprintf("%s.%s[%d]", fieldSensitive, a, i),
					Msg: fmt.Sprintf("%q is outside every scored root of %s: static scoring never sees it among the candidates", p.String(), joinField(fieldRoots, a.String()))})
			}
		}
	}
	return out
}
