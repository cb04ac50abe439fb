package trial

import (
	"testing"

	"github.com/authbench/authbench/policy"
)

// TestRecordAxes: the record's per-axis fields are its scores by
// policy.Axis, the network axis the fourth, absent until set.
func TestRecordAxes(t *testing.T) {
	var r Record
	for i, a := range policy.AllAxes {
		if _, ok := r.AxisScore(a); ok != (a != policy.Network) {
			t.Errorf("%v: has a score %v before any is set", a, ok)
		}
		want := policy.AxisScore{Precision: float64(i) / 10, Recall: float64(i) / 5, F1: float64(i) / 4}
		r.SetAxisScore(a, want)
		if got, ok := r.AxisScore(a); !ok || got != want {
			t.Errorf("%v: %v %v, want %v", a, got, ok, want)
		}
	}
	if r.ReadP != 0 || r.WriteR != 0.2 || r.ExecF1 != 0.5 || r.NetworkP == nil || *r.NetworkF1 != 0.75 {
		t.Errorf("fields %+v", r)
	}
	if _, ok := r.AxisScore(policy.Axis(7)); ok {
		t.Error("an unknown axis has a score")
	}
}
