// Package capped stores at most a given number of bytes of a stream in a
// file and counts the rest, without ever failing the writer.
package capped

import (
	"fmt"
	"io"
	"os"
	"sync"
)

// Writer stores at most limit bytes of a stream (a run's output) in a
// file and accepts (and counts) the rest without storing it. It never
// fails a Write: the process writing into it must not see EPIPE or ENOSPC
// because of it. The first write error is kept (Err) and everything after
// it is counted as dropped too.
type Writer struct {
	mu      sync.Mutex
	f       *os.File
	name    string // stdout, stderr: names the stream in errors
	limit   int64  // 0: unlimited
	written int64
	dropped int64
	err     error
	onErr   func(error) // called once, with the first write error
}

// NewWriter stores up to limit bytes (0: no limit) in f; name names the
// stream in errors ("write NAME: ..."). onErr, when not nil, is called
// once, with the first write error.
func NewWriter(f *os.File, name string, limit int64, onErr func(error)) *Writer {
	return &Writer{f: f, name: name, limit: limit, onErr: onErr}
}

// Write stores what fits under the limit and counts the rest as dropped.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	keep := int64(len(p))
	if w.err != nil {
		keep = 0
	} else if w.limit > 0 && w.written+keep > w.limit {
		keep = w.limit - w.written
	}
	if keep > 0 {
		n, err := w.f.Write(p[:keep])
		w.written += int64(n)
		keep = int64(n)
		if err != nil {
			w.fail(fmt.Errorf("write %s: %w", w.name, err))
		}
	}
	w.dropped += int64(len(p)) - keep
	return len(p), nil
}

func (w *Writer) fail(err error) {
	w.err = err
	if w.onErr != nil {
		w.onErr(err)
	}
}

// Close ends the file with the truncation marker (Marker) when something
// was dropped (and the file can still be written), closes it and returns
// the first write error.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.dropped > 0 && w.err == nil {
		if _, err := io.WriteString(w.f, Marker(w.written, w.dropped)); err != nil {
			w.fail(fmt.Errorf("write %s: %w", w.name, err))
		}
	}
	if err := w.f.Close(); err != nil && w.err == nil {
		w.fail(fmt.Errorf("close %s: %w", w.name, err))
	}
	return w.err
}

// Dropped is how many bytes were not stored.
func (w *Writer) Dropped() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.dropped
}

// Err is the first write error, if any.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Marker is the line that ends a stored stream whose end was dropped:
// "[authbench: output truncated after N bytes; M bytes dropped]", on a
// line of its own.
func Marker(kept, dropped int64) string {
	return fmt.Sprintf("\n[authbench: output truncated after %d bytes; %d bytes dropped]\n", kept, dropped)
}
