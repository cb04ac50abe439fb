package daemon

import (
	"fmt"
	"os"
	"sort"

	"go.uber.org/zap"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/tracer"
)

// maxDenials bounds the distinct denials kept in a run record.
const maxDenials = 1000

// traceRecorder writes a run's events to its log and collects denials.
type traceRecorder struct {
	sess    *tracer.Session
	file    *os.File
	w       *tracer.Writer
	done    chan struct{}
	judge   *denialJudge
	denials map[denialKey]*Denial
	order   []denialKey
	err     error
}

type denialKey struct{ op, axis, path, errno string }

// startTrace tracks pid (waiting at its gate) and records its tree.
func (m *Manager) startTrace(id string, pid int, plan *policy.Plan) (*traceRecorder, error) {
	f, err := os.Create(m.store.RunFile(id, eventsFile))
	if err != nil {
		return nil, fmt.Errorf("create event log: %w", err)
	}
	sess, err := m.cfg.Tracer.Track(pid)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("trace run: %w", err)
	}
	rec := &traceRecorder{
		sess: sess, file: f, w: tracer.NewWriter(f), done: make(chan struct{}),
		judge: newDenialJudge(plan), denials: map[denialKey]*Denial{},
	}
	go rec.consume()
	return rec, nil
}

func (rec *traceRecorder) consume() {
	defer close(rec.done)
	for ev := range rec.sess.Events() {
		if rec.err == nil {
			rec.err = rec.w.Write(&ev)
		}
		if rec.judge.denied(&ev) {
			rec.addDenial(&ev)
		}
	}
}

func (rec *traceRecorder) addDenial(ev *tracer.Event) {
	k := denialKey{string(ev.Op), string(ev.Axis), ev.Path, ev.Errno}
	if d, ok := rec.denials[k]; ok {
		d.Count++
		return
	}
	if len(rec.denials) >= maxDenials {
		return
	}
	rec.denials[k] = &Denial{Op: k.op, Axis: k.axis, Path: k.path, Errno: k.errno, Count: 1}
	rec.order = append(rec.order, k)
}

// finishTrace closes the session after the tree has exited, writes the
// summary line and records counts and denials (in order of first
// occurrence).
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
	denials := make([]Denial, 0, len(rec.order))
	for _, k := range rec.order {
		denials = append(denials, *rec.denials[k])
	}
	m.update(ar, func(r *Run) {
		r.Events, r.LostEvents, r.Denials = sum.Events, sum.Lost, denials
		if closeErr != nil && r.Error == "" {
			r.Error = closeErr.Error()
		}
	})
}

// denialJudge decides which failed operations the run's plan refused.
type denialJudge struct {
	plan *policy.Plan
	root *policy.Root
}

func newDenialJudge(plan *policy.Plan) *denialJudge {
	j := &denialJudge{plan: plan}
	if plan != nil {
		j.root, _ = policy.NewRoot("/")
	}
	return j
}

// denied: a traced operation that failed with EACCES or EPERM and that
// the plan forbids (DESIGN §7).
func (j *denialJudge) denied(ev *tracer.Event) bool {
	if j.plan == nil || j.root == nil || (ev.Errno != "EACCES" && ev.Errno != "EPERM") {
		return false
	}
	op := policy.Operation{Op: string(ev.Op), Path: ev.Path, Path2: ev.Path2, Flags: ev.Flags}
	return !j.plan.Permits(op, j.root.Realpath)
}

// sortDenials orders denials by path for display.
func sortDenials(ds []Denial) {
	sort.Slice(ds, func(i, j int) bool {
		if ds[i].Path != ds[j].Path {
			return ds[i].Path < ds[j].Path
		}
		return ds[i].Op < ds[j].Op
	})
}
