package policy

import "slices"

// AncestorRead is a read entry that the plan grants on an ancestor
// directory of the path it names: under published semantics, the path
// does not exist, so the launcher grants reading its closest existing
// ancestor, everything below it.
type AncestorRead struct {
	// Pattern is the entry.
	Pattern string `json:"pattern"`
	// Ancestor is the directory the rule is on.
	Ancestor string `json:"ancestor"`
}

// AncestorReads lists the read entries of the given origins (OriginPolicy
// when none is given) that the plan grants on an ancestor of the path
// they name (WiderReadAncestor, which the plan's Wider records for the
// policy's entries only), each once, in rule order.
func (pl *Plan) AncestorReads(origins ...string) []AncestorRead {
	if len(origins) == 0 {
		origins = []string{OriginPolicy}
	}
	var out []AncestorRead
	seen := map[string]bool{}
	for _, r := range pl.Rules {
		if !r.Dir {
			continue
		}
		for _, src := range r.From {
			if !slices.Contains(origins, src.Origin) || src.Axis != Read.String() || seen[src.Pattern] {
				continue
			}
			p, err := ParsePattern(src.Pattern)
			if err != nil || p.HasGlob() || p.Recursive() || p.String() == r.Path || !isWithin(p.String(), r.Path) {
				continue
			}
			seen[src.Pattern] = true
			out = append(out, AncestorRead{Pattern: src.Pattern, Ancestor: r.Path})
		}
	}
	return out
}
