package trial

import "github.com/authbench/authbench/policy"

// AxisScore returns the run's static score on axis a (policy.AllAxes,
// the record's per-axis fields): a file axis always, the network axis
// when the run has one (a scored run of a task whose spec scores it).
func (r *Record) AxisScore(a policy.Axis) (policy.AxisScore, bool) {
	switch a {
	case policy.Read:
		return policy.AxisScore{Precision: r.ReadP, Recall: r.ReadR, F1: r.ReadF1}, true
	case policy.Write:
		return policy.AxisScore{Precision: r.WriteP, Recall: r.WriteR, F1: r.WriteF1}, true
	case policy.Execute:
		return policy.AxisScore{Precision: r.ExecP, Recall: r.ExecR, F1: r.ExecF1}, true
	case policy.Network:
		if r.NetworkP != nil && r.NetworkR != nil && r.NetworkF1 != nil {
			return policy.AxisScore{Precision: *r.NetworkP, Recall: *r.NetworkR, F1: *r.NetworkF1}, true
		}
	}
	return policy.AxisScore{}, false
}

// SetAxisScore sets the run's static score on axis a to s.
func (r *Record) SetAxisScore(a policy.Axis, s policy.AxisScore) {
	switch a {
	case policy.Read:
		r.ReadP, r.ReadR, r.ReadF1 = s.Precision, s.Recall, s.F1
	case policy.Write:
		r.WriteP, r.WriteR, r.WriteF1 = s.Precision, s.Recall, s.F1
	case policy.Execute:
		r.ExecP, r.ExecR, r.ExecF1 = s.Precision, s.Recall, s.F1
	case policy.Network:
		r.NetworkP, r.NetworkR, r.NetworkF1 = &s.Precision, &s.Recall, &s.F1
	}
}
