package oracle

import (
	"github.com/authbench/authbench/policy"
)

// Agreement is one task's recorded spec scored against its curated one
// (Diff.Score): per axis, precision is the share of the recording the
// curator also requires, recall the share of the curated requirement
// the recording holds.
type Agreement struct {
	Task string                             `json:"task"`
	Axes [len(policy.Axes)]policy.AxisScore `json:"axes"`
	// Error says why the task has no score (the recording was refused,
	// or could not be scored); such a task is left out of the macro
	// average and counted apart.
	Error string `json:"error,omitempty"`
}

// AgreementOf scores a recording's report (nil report or error: a task
// without a score).
func AgreementOf(task string, rep *Report, err error) Agreement {
	a := Agreement{Task: task}
	switch {
	case err != nil:
		a.Error = err.Error()
	case rep == nil || rep.Diff == nil || rep.Diff.Score == nil:
		a.Error = "no score"
		if rep != nil && rep.Diff != nil && rep.Diff.ScoreError != "" {
			a.Error = rep.Diff.ScoreError
		}
	default:
		a.Axes = rep.Diff.Score.Axes
	}
	return a
}

// MacroAgreement averages each axis' precision, recall and F1 over the
// tasks that have a score; scored is how many had one.
func MacroAgreement(list []Agreement) (macro [len(policy.Axes)]policy.AxisScore, scored int) {
	for _, a := range list {
		if a.Error != "" {
			continue
		}
		scored++
		for ax := range macro {
			macro[ax].Precision += a.Axes[ax].Precision
			macro[ax].Recall += a.Axes[ax].Recall
			macro[ax].F1 += a.Axes[ax].F1
		}
	}
	if scored == 0 {
		return macro, 0
	}
	for ax := range macro {
		n := float64(scored)
		macro[ax] = policy.AxisScore{Precision: macro[ax].Precision / n, Recall: macro[ax].Recall / n, F1: macro[ax].F1 / n}
	}
	return macro, scored
}
