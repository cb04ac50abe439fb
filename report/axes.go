package report

import (
	"slices"
	"strings"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/trial"
)

// Axis returns the set's macro score on axis a (policy.AllAxes), nil
// when the set has none: the network axis of a set none of whose tasks'
// specs scores it.
func (s *Static) Axis(a policy.Axis) *Axis {
	switch a {
	case policy.Read:
		return &s.Read
	case policy.Write:
		return &s.Write
	case policy.Execute:
		return &s.Execute
	case policy.Network:
		return s.Network
	}
	return nil
}

// setAxis sets the set's macro score on axis a.
func (s *Static) setAxis(a policy.Axis, x Axis) {
	if a == policy.Network {
		s.Network = &x
		return
	}
	*s.Axis(a) = x
}

// shownAxes are the axes of the static table's columns (no dataset
// given) or of a dataset's per-axis chart: the file axes always, the
// network axis when a row's set (of dataset) has it.
func (r *Report) shownAxes(dataset ...string) []policy.Axis {
	for _, row := range r.Rows {
		for _, set := range []struct {
			name string
			s    *Static
		}{{DatasetStandard, row.StaticStandard}, {DatasetSensitive, row.StaticSensitive}} {
			if set.s != nil && set.s.Network != nil && (len(dataset) == 0 || slices.Contains(dataset, set.name)) {
				return policy.AllAxes[:]
			}
		}
	}
	return policy.Axes[:]
}

// axisTitle is the axis's name as a column heading ("Read").
func axisTitle(a policy.Axis) string {
	name := a.String()
	return strings.ToUpper(name[:1]) + name[1:]
}

// macroAxis is the macro score on axis a over the runs that have one (a
// file axis: every run; the network axis: the runs of tasks whose spec
// scores it); an invalid policy counts as 0. Nil when no run has one.
func macroAxis(runs []*trial.Record, a policy.Axis) *Axis {
	metric := func(get func(policy.AxisScore) float64) (float64, int) {
		return macroMean(runs, func(r *trial.Record) (float64, bool) {
			x, ok := r.AxisScore(a)
			switch {
			case !ok:
				return 0, false
			case !r.PolicyValid:
				return 0, true
			}
			return get(x), true
		})
	}
	f1, tasks := metric(func(x policy.AxisScore) float64 { return x.F1 })
	if tasks == 0 {
		return nil
	}
	p, _ := metric(func(x policy.AxisScore) float64 { return x.Precision })
	rc, _ := metric(func(x policy.AxisScore) float64 { return x.Recall })
	return &Axis{Precision: p, Recall: rc, F1: f1}
}
