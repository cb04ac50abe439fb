package oracle

import (
	"github.com/authbench/authbench/policy"
)

// Nondeterministic is an entry that only some of the recorded runs
// needed: a curator decides whether it belongs in the spec.
type Nondeterministic struct {
	Axis  string `json:"axis"`
	Entry string `json:"entry"`
	// Runs are the runs (numbered from 1) that needed it.
	Runs []int `json:"runs"`
	// Kept says whether the recorded spec lists it: entries of read and
	// execute are kept, entries of write are not (a write grant is not
	// given on the strength of one run).
	Kept bool `json:"kept"`
}

// Merge combines the compacted entries of several runs: an entry every
// run needed is kept; one that only some needed is reported as
// nondeterministic, and kept on the read and execute axes only.
func Merge(runs [][len(policy.Axes)][]string) (merged [len(policy.Axes)][]string, nd []Nondeterministic) {
	for _, ax := range policy.Axes {
		seen := map[string][]int{}
		for i, r := range runs {
			for _, e := range r[ax] {
				seen[e] = append(seen[e], i+1)
			}
		}
		keep := map[string]bool{}
		for _, e := range sortedKeys(boolKeys(seen)) {
			in := seen[e]
			if len(in) == len(runs) {
				keep[e] = true
				continue
			}
			kept := ax != policy.Write
			keep[e] = kept
			nd = append(nd, Nondeterministic{Axis: ax.String(), Entry: e, Runs: in, Kept: kept})
		}
		merged[ax] = sortedKeys(keep)
	}
	return merged, nd
}

func boolKeys[V any](m map[string]V) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}
