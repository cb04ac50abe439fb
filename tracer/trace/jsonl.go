package trace

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// Writer writes events as JSON lines (see Event.AppendJSON), ending with
// the summary line {"op":"summary","events":N,"lost":M} (with
// ,"dropped":D when a cap dropped events: see Summary).
type Writer struct {
	w   *bufio.Writer
	buf []byte
}

// NewWriter returns a Writer on w; call Close to write the summary and flush.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: bufio.NewWriterSize(w, 256<<10)}
}

// Write writes one event line.
func (w *Writer) Write(ev *Event) error {
	w.buf = append(ev.AppendJSON(w.buf[:0]), '\n')
	if _, err := w.w.Write(w.buf); err != nil {
		return fmt.Errorf("write trace event: %w", err)
	}
	return nil
}

// Close writes the summary line and flushes; it does not close the
// underlying writer.
func (w *Writer) Close(sum Summary) error {
	line := append([]byte(`{"op":"summary","events":`), strconv.FormatUint(sum.Events, 10)...)
	line = append(line, `,"lost":`...)
	line = strconv.AppendUint(line, sum.Lost, 10)
	if sum.Dropped > 0 {
		line = strconv.AppendUint(append(line, `,"dropped":`...), sum.Dropped, 10)
	}
	line = append(line, "}\n"...)
	if _, err := w.w.Write(line); err != nil {
		return fmt.Errorf("write trace summary: %w", err)
	}
	if err := w.w.Flush(); err != nil {
		return fmt.Errorf("flush trace: %w", err)
	}
	return nil
}

// Summary counts the events of a session.
type Summary struct {
	// Events is the number of events delivered.
	Events uint64 `json:"events"`
	// Lost is the number of events that were not delivered: dropped by
	// the kernel (ring buffer or maps full), not decodable, or dropped
	// because the consumer fell the tracer's queue bound (tracer.Options.MaxQueued) events behind.
	// In an event log's summary line it also counts Dropped: every event
	// the log does not hold.
	Lost uint64 `json:"lost"`
	// Dropped is the number of events delivered but not stored because
	// the event log reached its cap (audit.RecordOptions.MaxBytes); a
	// {"op":"truncated"} line precedes the summary line then. 0 in a
	// session's own summary.
	Dropped uint64 `json:"dropped,omitempty"`
	// Running is the number of processes of the tree that were still
	// running when the session closed; their later events are not traced.
	Running int `json:"-"`
}
