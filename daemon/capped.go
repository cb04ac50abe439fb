package daemon

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// cappedWriter stores at most limit bytes of a run's output in a file and
// accepts (and counts) the rest without storing it. It never fails a
// Write: the tree writing into it must not see EPIPE or ENOSPC because
// of us. The first write error is kept (Err) and everything after it is
// counted as dropped too.
type cappedWriter struct {
	mu      sync.Mutex
	f       *os.File
	name    string // stdout, stderr: names the stream in errors
	limit   int64  // 0: unlimited
	written int64
	dropped int64
	err     error
	onErr   func(error) // called once, with the first write error
}

// newCappedWriter stores up to limit bytes (0: no limit) in f.
func newCappedWriter(f *os.File, name string, limit int64, onErr func(error)) *cappedWriter {
	return &cappedWriter{f: f, name: name, limit: limit, onErr: onErr}
}

// Write stores what fits under the limit and counts the rest as dropped.
func (w *cappedWriter) Write(p []byte) (int, error) {
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

func (w *cappedWriter) fail(err error) {
	w.err = err
	if w.onErr != nil {
		w.onErr(err)
	}
}

// Close ends the file with the truncation marker when something was
// dropped (and the file can still be written), and closes it.
func (w *cappedWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.dropped > 0 && w.err == nil {
		if _, err := io.WriteString(w.f, truncationMarker(w.written, w.dropped)); err != nil {
			w.fail(fmt.Errorf("write %s: %w", w.name, err))
		}
	}
	if err := w.f.Close(); err != nil && w.err == nil {
		w.fail(fmt.Errorf("close %s: %w", w.name, err))
	}
	return w.err
}

// Dropped is how many bytes were not stored.
func (w *cappedWriter) Dropped() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.dropped
}

// Err is the first write error, if any.
func (w *cappedWriter) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// truncationMarker is the line that ends a stored output whose end was
// dropped; it starts on its own line.
func truncationMarker(kept, dropped int64) string {
	return fmt.Sprintf("\n[authbench: output truncated after %d bytes; %d bytes dropped]\n", kept, dropped)
}

// outputPipe carries one stream of a tree (stdout or stderr) through a
// pipe into a cappedWriter, so that what the tree writes beyond the cap
// or after a write error is read and dropped instead of blocking it.
type outputPipe struct {
	w        *cappedWriter
	r        *os.File
	childEnd *os.File // the tree's end; closed here once the tree started
	done     chan struct{}
}

// startOutputPipe starts copying a new pipe into w.
func startOutputPipe(w *cappedWriter) (*outputPipe, error) {
	r, childEnd, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("%s pipe: %w", w.name, err)
	}
	p := &outputPipe{w: w, r: r, childEnd: childEnd, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		_, _ = io.Copy(w, r) // w never fails: this ends at EOF or when r is closed
	}()
	return p, nil
}

// started closes the daemon's copy of the tree's end, so that the copy
// ends when the tree's last writer is gone.
func (p *outputPipe) started() { p.childEnd.Close() }

// finish waits up to grace for every writer of the pipe to be gone, stops
// reading, and closes the file (with the truncation marker).
func (p *outputPipe) finish(grace time.Duration) error {
	p.childEnd.Close()
	select {
	case <-p.done:
	case <-time.After(grace):
	}
	p.r.Close()
	<-p.done
	return p.w.Close()
}
