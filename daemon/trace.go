package daemon

import (
	"fmt"

	"go.uber.org/zap"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/tracer"
)

// startTrace tracks pid (waiting at its gate; its own start-up is left
// out) and records its tree into the run's event log.
func (m *Manager) startTrace(id string, pid int, plan *policy.Plan, root *policy.Root) (*audit.Recording, error) {
	sess, err := m.cfg.Tracer.TrackWith(pid, tracer.TrackOptions{FromExec: true})
	if err != nil {
		return nil, fmt.Errorf("trace run: %w", err)
	}
	return audit.Record(sess, m.store.RunFile(id, eventsFile), audit.New(plan, root.RealpathNow), nil)
}

// finishTrace ends the recording after the tree has exited and records
// counts, denials and loader executions.
func (m *Manager) finishTrace(ar *activeRun, rec *audit.Recording) {
	if rec == nil {
		return
	}
	sum, err := rec.Close()
	if err != nil {
		m.log.Error("trace of run incomplete", zap.String("run", ar.rec.ID), zap.Error(err))
	}
	a := rec.Auditor
	m.update(ar, func(r *Run) {
		r.Events, r.LostEvents = sum.Events, sum.Lost
		r.Denials, r.DeniedDropped, r.LoaderExecs = a.Denials(), a.Dropped(), a.LoaderExecs()
		if err != nil && r.Error == "" {
			r.Error = err.Error()
		}
	})
}
