package audit

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/authbench/authbench/tracer/trace"
)

// Recording writes the events of one traced run to a JSON-lines file,
// with the events its Auditor derives from them, and audits them. It is
// what the embedded exec, the daemon and task runs record runs with.
//
// What is written reaches the file at least every FlushInterval (or
// every flushBytes), so a recorder killed mid-run leaves the events up to
// then on disk, without the summary line.
type Recording struct {
	// Auditor judged the events; read it after Close.
	Auditor *Auditor
	sess    trace.Session
	file    *os.File
	out     *bufio.Writer
	opts    RecordOptions
	also    func(*trace.Event)
	done    chan error
	// Written by the consuming goroutine, read after it ended.
	stored  int64
	dropped uint64
}

// RecordOptions tune a Recording.
type RecordOptions struct {
	// MaxBytes caps the event lines stored (0: no cap). Events beyond it
	// are audited but not stored: they are counted (Dropped) and a line
	// {"op":"truncated","after_bytes":N,"dropped_events":M} precedes the
	// summary line.
	MaxBytes int64
}

// FlushInterval is how long written events may wait in memory at most.
const FlushInterval = 200 * time.Millisecond

// flushBytes is how many bytes of events may wait in memory at most.
const flushBytes = 64 << 10

// Record starts recording sess into a new file named file. also, when
// not nil, sees every written event too (on the recording's goroutine);
// it must not keep the event (or a pointer into it) after it returns:
// the recording recycles the session's batches.
// If the file cannot be created the session is closed.
func Record(sess trace.Session, file string, a *Auditor, also func(*trace.Event)) (*Recording, error) {
	return RecordWith(sess, file, a, also, RecordOptions{})
}

// RecordWith is Record with options.
func RecordWith(sess trace.Session, file string, a *Auditor, also func(*trace.Event), opts RecordOptions) (*Recording, error) {
	f, err := os.Create(file)
	if err != nil {
		_, _ = sess.Close()
		return nil, fmt.Errorf("create event log: %w", err)
	}
	r := &Recording{
		Auditor: a, sess: sess, file: f, out: bufio.NewWriterSize(f, flushBytes), opts: opts,
		also: also, done: make(chan error, 1),
	}
	go func() { r.done <- r.consume() }()
	return r, nil
}

// Name is the event file's name.
func (r *Recording) Name() string { return r.file.Name() }

func (r *Recording) consume() error {
	var werr error
	var line []byte
	write := func(ev *trace.Event) {
		if r.also != nil {
			r.also(ev)
		}
		if werr != nil {
			return
		}
		line = append(ev.AppendJSON(line[:0]), '\n')
		if r.opts.MaxBytes > 0 && r.stored+int64(len(line)) > r.opts.MaxBytes {
			r.dropped++
			return
		}
		if _, err := r.out.Write(line); err != nil {
			werr = fmt.Errorf("write trace event: %w", err)
			return
		}
		r.stored += int64(len(line))
	}
	tick := time.NewTicker(FlushInterval)
	defer tick.Stop()
	events := r.sess.Events()
	for {
		select {
		case batch, ok := <-events:
			if !ok {
				return werr
			}
			for i := range batch {
				ev := &batch[i]
				write(ev)
				for _, d := range r.Auditor.Observe(ev) {
					write(&d)
				}
			}
			r.sess.Recycle(batch)
		case <-tick.C:
			if werr == nil && r.out.Buffered() > 0 {
				if err := r.out.Flush(); err != nil {
					werr = fmt.Errorf("flush trace: %w", err)
				}
			}
		}
	}
}

// Dropped is how many events were not stored because of MaxBytes; valid
// after Close.
func (r *Recording) Dropped() uint64 { return r.dropped }

// Close ends the session once the traced tree has exited, waits until
// every event is written, ends the file with the truncation line (if
// events were dropped) and the summary line and returns the session's
// summary (its Lost without Dropped: callers add Dropped). The summary
// is valid even when an error is returned.
func (r *Recording) Close() (trace.Summary, error) {
	sum, closeErr := r.sess.Close()
	consumeErr := <-r.done
	var werr error
	if consumeErr == nil {
		if r.dropped > 0 {
			_, werr = r.out.Write(truncatedLine(r.stored, r.dropped))
		}
		if werr == nil {
			werr = r.out.Flush()
		}
		if werr == nil {
			werr = trace.NewWriter(r.file).Close(r.fileSummary(sum))
		}
	}
	ferr := r.file.Close()
	return sum, errors.Join(closeErr, consumeErr, werr, ferr)
}

// fileSummary is the event log's summary line for the session's sum:
// lost counts every event the log does not hold, those the kernel or the
// tracer lost and those dropped at the cap (also counted as dropped), so
// that a capped log never ends saying "lost":0.
func (r *Recording) fileSummary(sum trace.Summary) trace.Summary {
	sum.Lost += r.dropped
	sum.Dropped = r.dropped
	return sum
}

// truncatedLine is the event log line that says events were dropped
// after storedBytes.
func truncatedLine(storedBytes int64, dropped uint64) []byte {
	line := append([]byte(`{"op":"truncated","after_bytes":`), strconv.FormatInt(storedBytes, 10)...)
	line = append(line, `,"dropped_events":`...)
	return append(strconv.AppendUint(line, dropped, 10), "}\n"...)
}
