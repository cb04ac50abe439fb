package daemon

import (
	"context"
	"errors"
	"io"
	"os"
)

// OpenLog opens one of run id's logs (events.jsonl, stdout.log,
// stderr.log). With follow, reads block at the end of the file until more
// is written or the run has ended; ctx ends the stream early.
func (m *Manager) OpenLog(ctx context.Context, id, name string, follow bool) (io.ReadCloser, error) {
	if _, err := m.Get(id); err != nil {
		return nil, err
	}
	f, err := os.Open(m.store.RunFile(id, name))
	if errors.Is(err, os.ErrNotExist) {
		// The run has not created it (yet, or at all: an untraced run
		// has no events).
		if ar := m.lookup(id); ar == nil || !follow {
			return io.NopCloser(eofReader{}), nil
		}
		return &followReader{ctx: ctx, m: m, id: id, path: m.store.RunFile(id, name)}, nil
	}
	if err != nil {
		return nil, err
	}
	if !follow {
		return f, nil
	}
	return &followReader{ctx: ctx, m: m, id: id, f: f}, nil
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// followReader reads a growing log until its run has ended and every
// byte has been read.
type followReader struct {
	ctx  context.Context
	m    *Manager
	id   string
	path string // set while the file does not exist yet
	f    *os.File
}

func (r *followReader) Read(p []byte) (int, error) {
	for {
		ar := r.m.lookup(r.id)
		var changed, done <-chan struct{}
		if ar != nil {
			changed = ar.changes() // taken before reading: no wake-up is missed
			done = ar.done         // ...nor the end, if it came before changes()
		}
		if r.f == nil {
			f, err := os.Open(r.path)
			if err == nil {
				r.f = f
			} else if ar == nil {
				return 0, io.EOF
			}
		}
		if r.f != nil {
			n, err := r.f.Read(p)
			if n > 0 || !errors.Is(err, io.EOF) {
				return n, err
			}
			if ar == nil {
				return 0, io.EOF // ended, and everything has been read
			}
		}
		select {
		case <-changed:
		case <-done:
		case <-r.ctx.Done():
			return 0, r.ctx.Err()
		}
	}
}

func (r *followReader) Close() error {
	if r.f == nil {
		return nil
	}
	return r.f.Close()
}
