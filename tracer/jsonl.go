package tracer

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// Writer writes events as JSON lines (see Event.AppendJSON), ending with
// the summary line {"op":"summary","events":N,"lost":M}.
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

// WriteSession writes every event of s until its Events channel closes,
// and returns the first write error; it keeps reading after one, so that
// Session.Close is never kept waiting.
func (w *Writer) WriteSession(s *Session) error {
	var werr error
	for batch := range s.Events() {
		for i := range batch {
			if werr == nil {
				werr = w.Write(&batch[i])
			}
		}
		s.Recycle(batch)
	}
	return werr
}

// Close writes the summary line and flushes; it does not close the
// underlying writer.
func (w *Writer) Close(sum Summary) error {
	line := append([]byte(`{"op":"summary","events":`), strconv.FormatUint(sum.Events, 10)...)
	line = append(line, `,"lost":`...)
	line = append(strconv.AppendUint(line, sum.Lost, 10), "}\n"...)
	if _, err := w.w.Write(line); err != nil {
		return fmt.Errorf("write trace summary: %w", err)
	}
	if err := w.w.Flush(); err != nil {
		return fmt.Errorf("flush trace: %w", err)
	}
	return nil
}
