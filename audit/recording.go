package audit

import (
	"errors"
	"fmt"
	"os"

	"github.com/authbench/authbench/tracer"
)

// Recording writes the events of one traced run to a JSON-lines file,
// with the events its Auditor derives from them, and audits them. It is
// what the embedded exec, the daemon and task runs record runs with.
type Recording struct {
	// Auditor judged the events; read it after Close.
	Auditor *Auditor
	sess    *tracer.Session
	file    *os.File
	w       *tracer.Writer
	also    func(*tracer.Event)
	done    chan error
}

// Record starts recording sess into a new file named file. also, when
// not nil, sees every written event too (on the recording's goroutine).
// If the file cannot be created the session is closed.
func Record(sess *tracer.Session, file string, a *Auditor, also func(*tracer.Event)) (*Recording, error) {
	f, err := os.Create(file)
	if err != nil {
		_, _ = sess.Close()
		return nil, fmt.Errorf("create event log: %w", err)
	}
	r := &Recording{Auditor: a, sess: sess, file: f, w: tracer.NewWriter(f), also: also, done: make(chan error, 1)}
	go func() { r.done <- r.consume() }()
	return r, nil
}

// Name is the event file's name.
func (r *Recording) Name() string { return r.file.Name() }

func (r *Recording) consume() error {
	var werr error
	write := func(ev *tracer.Event) {
		if werr == nil {
			werr = r.w.Write(ev)
		}
		if r.also != nil {
			r.also(ev)
		}
	}
	for batch := range r.sess.Events() {
		for i := range batch {
			ev := &batch[i]
			write(ev)
			for _, d := range r.Auditor.Observe(ev) {
				write(&d)
			}
		}
	}
	return werr
}

// Close ends the session once the traced tree has exited, waits until
// every event is written, ends the file with the summary line and returns
// the summary. The summary is valid even when an error is returned.
func (r *Recording) Close() (tracer.Summary, error) {
	sum, closeErr := r.sess.Close()
	consumeErr := <-r.done
	werr := r.w.Close(sum)
	ferr := r.file.Close()
	return sum, errors.Join(closeErr, consumeErr, werr, ferr)
}
