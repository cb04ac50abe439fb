package policy

import "encoding/json"

// Aggregate is the macro average of static scores over tasks (and
// trials) of one dataset.
type Aggregate struct {
	// Count is the number of scores averaged, invalid ones included.
	Count int `json:"count"`
	// Invalid is how many of them were invalid (counted as 0).
	Invalid int `json:"invalid"`
	// Axes holds the mean precision, recall and F1 of each axis.
	Axes [len(Axes)]AxisScore `json:"-"`
	// SensitiveCoverage is the mean sensitive exposure coverage over the
	// scores whose spec has sensitive_permissions (invalid ones as 0);
	// nil when there are none.
	SensitiveCoverage *float64 `json:"sensitive_exposure_coverage,omitempty"`
}

// MacroAverage averages scores; an invalid score counts as 0 on every
// metric, including sensitive coverage when sensitive[i] says its spec
// has sensitive_permissions.
func MacroAverage(scores []*Score, sensitive []bool) Aggregate {
	var agg Aggregate
	agg.Count = len(scores)
	var covSum float64
	covN := 0
	for i, s := range scores {
		isSensitive := i < len(sensitive) && sensitive[i]
		if isSensitive {
			covN++
		}
		if s == nil || !s.Valid {
			agg.Invalid++
			continue
		}
		for _, a := range Axes {
			agg.Axes[a].Precision += s.Axes[a].Precision
			agg.Axes[a].Recall += s.Axes[a].Recall
			agg.Axes[a].F1 += s.Axes[a].F1
		}
		if isSensitive && s.SensitiveCoverage != nil {
			covSum += *s.SensitiveCoverage
		}
	}
	if agg.Count > 0 {
		n := float64(agg.Count)
		for _, a := range Axes {
			agg.Axes[a].Precision /= n
			agg.Axes[a].Recall /= n
			agg.Axes[a].F1 /= n
		}
	}
	if covN > 0 {
		cov := covSum / float64(covN)
		agg.SensitiveCoverage = &cov
	}
	return agg
}

// MarshalJSON writes the axes under their names beside the counts.
func (g Aggregate) MarshalJSON() ([]byte, error) {
	out := map[string]any{"count": g.Count, "invalid": g.Invalid}
	for _, a := range Axes {
		out[a.String()] = g.Axes[a]
	}
	if g.SensitiveCoverage != nil {
		out["sensitive_exposure_coverage"] = *g.SensitiveCoverage
	}
	return json.Marshal(out)
}
