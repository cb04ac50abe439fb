package policy

// networkTally computes the set sizes of the network axis
// (docs/scoring.md, "The network axis"). Its universe is the spec's own
// entries — required and sensitive — plus one element for each policy
// pattern that reaches beyond them:
//
//   - A spec entry is granted (in A) when a policy pattern overlaps it
//     (reaches one of its host:ports); a required entry is a hit when a
//     single policy pattern covers it (reaches all of them). For an exact
//     entry, the usual case, the two are the same.
//   - A policy pattern that no required, sensitive or implicit entry
//     covers adds one granted element outside Rq ("*:*", "mirror:*"
//     against "mirror:8080").
//   - Entries and patterns covered by an implicit entry leave A and Rq.
//   - Sensitive entries count for exposure before implicit removal: a
//     sensitive entry is exposed when a policy pattern overlaps it.
func networkTally(pol []HostPattern, n NetworkSpec) axisTally {
	var t axisTally
	implicit := func(q HostPattern) bool { return anyCovers(n.Implicit, q) }
	required := make(map[string]bool, len(n.Required))
	for _, e := range n.Required {
		required[e.String()] = true
		if implicit(e) {
			continue
		}
		t.required++
		if anyOverlaps(pol, e) {
			t.granted++
		}
		if anyCovers(pol, e) {
			t.hit++
		}
	}
	for _, e := range n.Sensitive {
		reached := anyOverlaps(pol, e)
		t.sens++
		if reached {
			t.sensGranted++
		}
		if reached && !required[e.String()] && !implicit(e) {
			t.granted++
		}
	}
	for _, p := range pol {
		if implicit(p) || anyCovers(n.Required, p) || anyCovers(n.Sensitive, p) {
			continue
		}
		t.granted++
	}
	return t
}

// anyCovers reports whether an entry of list covers q.
func anyCovers(list []HostPattern, q HostPattern) bool {
	for _, p := range list {
		if p.Covers(q) {
			return true
		}
	}
	return false
}

// anyOverlaps reports whether an entry of list overlaps q.
func anyOverlaps(list []HostPattern, q HostPattern) bool {
	for _, p := range list {
		if p.Overlaps(q) {
			return true
		}
	}
	return false
}
