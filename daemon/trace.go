package daemon

import (
	"fmt"
	"os"

	"go.uber.org/zap"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/tracer"
)

// traceRecorder writes a run's events to its log and audits them.
type traceRecorder struct {
	sess    *tracer.Session
	file    *os.File
	w       *tracer.Writer
	done    chan struct{}
	auditor *audit.Auditor
	err     error
}

// startTrace tracks pid (waiting at its gate; its own start-up is left
// out) and records its tree.
func (m *Manager) startTrace(id string, pid int, plan *policy.Plan) (*traceRecorder, error) {
	root, err := policy.NewRoot("/")
	if err != nil {
		return nil, err
	}
	f, err := os.Create(m.store.RunFile(id, eventsFile))
	if err != nil {
		return nil, fmt.Errorf("create event log: %w", err)
	}
	sess, err := m.cfg.Tracer.TrackWith(pid, tracer.TrackOptions{FromExec: true})
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("trace run: %w", err)
	}
	rec := &traceRecorder{sess: sess, file: f, w: tracer.NewWriter(f), done: make(chan struct{}), auditor: audit.New(plan, root.Realpath)}
	go rec.consume()
	return rec, nil
}

func (rec *traceRecorder) consume() {
	defer close(rec.done)
	write := func(ev *tracer.Event) {
		if rec.err == nil {
			rec.err = rec.w.Write(ev)
		}
	}
	for ev := range rec.sess.Events() {
		write(&ev)
		for _, d := range rec.auditor.Observe(&ev) {
			write(&d)
		}
	}
}

// finishTrace closes the session after the tree has exited, writes the
// summary line and records counts, denials and loader executions.
func (m *Manager) finishTrace(ar *activeRun, rec *traceRecorder) {
	if rec == nil {
		return
	}
	sum, closeErr := rec.sess.Close()
	<-rec.done
	werr := rec.err
	if werr == nil {
		werr = rec.w.Close(sum)
	}
	rec.file.Close()
	if closeErr != nil || werr != nil {
		m.log.Error("trace of run incomplete", zap.String("run", ar.rec.ID), zap.NamedError("close", closeErr), zap.NamedError("write", werr))
	}
	m.update(ar, func(r *Run) {
		r.Events, r.LostEvents = sum.Events, sum.Lost
		r.Denials, r.DeniedDropped, r.LoaderExecs = rec.auditor.Denials(), rec.auditor.Dropped(), rec.auditor.LoaderExecs()
		if closeErr != nil && r.Error == "" {
			r.Error = closeErr.Error()
		}
	})
}
