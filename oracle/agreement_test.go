package oracle

import (
	"errors"
	"math"
	"testing"

	"github.com/authbench/authbench/policy"
)

// TestMacroAgreement: a macro average per axis over the scored tasks; a
// refused recording is counted apart, not as a perfect or a zero score.
func TestMacroAgreement(t *testing.T) {
	score := func(p, r, f float64) *Report {
		s := &policy.Score{Valid: true}
		for ax := range s.Axes {
			s.Axes[ax] = policy.AxisScore{Precision: p, Recall: r, F1: f}
		}
		return &Report{Diff: &Diff{Score: s}}
	}
	list := []Agreement{
		AgreementOf("a", score(1, 1, 1), nil),
		AgreementOf("b", score(0.5, 1, 2.0/3), nil),
		AgreementOf("c", nil, errors.New("task c is broken")),
		AgreementOf("d", &Report{Diff: &Diff{ScoreError: "no image root to score over"}}, nil),
	}
	macro, n := MacroAgreement(list)
	if n != 2 || list[2].Error == "" || list[3].Error != "no image root to score over" {
		t.Fatalf("scored %d, list %+v", n, list)
	}
	for ax := range macro {
		if math.Abs(macro[ax].Precision-0.75) > 1e-12 || macro[ax].Recall != 1 || math.Abs(macro[ax].F1-5.0/6) > 1e-12 {
			t.Fatalf("axis %d: %+v", ax, macro[ax])
		}
	}
	if _, n := MacroAgreement(nil); n != 0 {
		t.Fatal("no tasks, scored")
	}
}
