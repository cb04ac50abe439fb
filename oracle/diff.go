package oracle

import (
	"github.com/authbench/authbench/policy"
)

// AxisDiff compares one axis of a recorded required set with the
// curated one.
type AxisDiff struct {
	Axis    string   `json:"axis"`
	Added   []string `json:"added"`   // recorded, not curated
	Removed []string `json:"removed"` // curated, not recorded
}

// Diff is the recorded required set against the curated spec's: per
// axis the entries, and the static score (policy.ScorePolicy) of the
// recorded set as a policy against the curated spec: its precision is
// the share of the recording the curator also requires, its recall the
// share of the curated requirement the oracle was seen to need.
type Diff struct {
	Axes  []AxisDiff    `json:"axes"`
	Score *policy.Score `json:"score,omitempty"`
	// ScoreError says why no score could be computed (no image root, or
	// the curated spec is invalid in the image).
	ScoreError string `json:"score_error,omitempty"`
}

// Changed reports whether any entry differs.
func (d *Diff) Changed() bool {
	for _, a := range d.Axes {
		if len(a.Added)+len(a.Removed) > 0 {
			return true
		}
	}
	return false
}

// DiffRequired compares recorded with curated.Required, scoring it over
// root when root is set.
func DiffRequired(recorded policy.Permissions, curated *policy.Spec, root *policy.Root) *Diff {
	d := &Diff{}
	for _, ax := range policy.Axes {
		rec, cur := patternSet(recorded.Get(ax)), patternSet(curated.Required.Get(ax))
		ad := AxisDiff{Axis: ax.String(), Added: []string{}, Removed: []string{}}
		for _, e := range sortedKeys(rec) {
			if !cur[e] {
				ad.Added = append(ad.Added, e)
			}
		}
		for _, e := range sortedKeys(cur) {
			if !rec[e] {
				ad.Removed = append(ad.Removed, e)
			}
		}
		d.Axes = append(d.Axes, ad)
	}
	if root == nil {
		d.ScoreError = "no image root to score over"
		return d
	}
	sc, err := policy.ScorePolicy(&policy.Policy{Permissions: recorded, Source: "recorded"}, curated, root)
	if err != nil {
		d.ScoreError = err.Error()
	} else {
		d.Score = sc
	}
	return d
}

func patternSet(ps []policy.Pattern) map[string]bool {
	out := map[string]bool{}
	for _, p := range ps {
		out[p.String()] = true
	}
	return out
}
