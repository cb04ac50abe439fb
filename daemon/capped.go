package daemon

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/authbench/authbench/internal/capped"
)

// outputPipe carries one stream of a tree (stdout or stderr) through a
// pipe into a capped.Writer, so that what the tree writes beyond the cap
// or after a write error is read and dropped instead of blocking it.
type outputPipe struct {
	w        *capped.Writer
	r        *os.File
	childEnd *os.File // the tree's end; closed here once the tree started
	done     chan struct{}
}

// startOutputPipe starts copying a new pipe into w.
func startOutputPipe(w *capped.Writer, name string) (*outputPipe, error) {
	r, childEnd, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("%s pipe: %w", name, err)
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
