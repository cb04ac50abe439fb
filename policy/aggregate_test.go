package policy

import (
	"errors"
	"math"
	"testing"
)

func TestMacroAverageCountsInvalidAsZero(t *testing.T) {
	cov := 0.5
	full := &Score{Valid: true, SensitiveCoverage: &cov}
	for _, a := range Axes {
		full.Axes[a] = AxisScore{Precision: 1, Recall: 0.5, F1: 2.0 / 3}
	}
	agg := MacroAverage([]*Score{full, InvalidScore(errors.New("bad"))}, []bool{true, true})
	if agg.Count != 2 || agg.Invalid != 1 {
		t.Fatalf("count/invalid = %d/%d", agg.Count, agg.Invalid)
	}
	for _, a := range Axes {
		if g := agg.Axes[a]; g.Precision != 0.5 || g.Recall != 0.25 || math.Abs(g.F1-1.0/3) > 1e-12 {
			t.Fatalf("%s = %+v", a, g)
		}
	}
	if agg.SensitiveCoverage == nil || *agg.SensitiveCoverage != 0.25 {
		t.Fatalf("coverage = %v", agg.SensitiveCoverage)
	}
}

func TestMacroAverageWithoutSensitiveTasks(t *testing.T) {
	agg := MacroAverage([]*Score{{Valid: true}}, nil)
	if agg.SensitiveCoverage != nil {
		t.Fatalf("coverage should be absent, got %v", *agg.SensitiveCoverage)
	}
	if empty := MacroAverage(nil, nil); empty.Count != 0 || empty.Axes[Read].F1 != 0 {
		t.Fatalf("empty = %+v", empty)
	}
}
