package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/authbench/authbench/runapi"
)

// OpenArtifactFor opens run id's file of API name api (OpenArtifact) if
// peer may see the run (else ErrNotFound, whether or not it has the
// file).
func (m *Manager) OpenArtifactFor(ctx context.Context, peer Peer, id, api string, follow bool) (io.ReadCloser, string, error) {
	if _, err := m.GetFor(peer, id); err != nil {
		return nil, "", err
	}
	return m.OpenArtifact(ctx, id, api, follow)
}

// OpenArtifact opens run id's file of API name api, one of those its
// kind's artifact table lists (runKind.artifacts), and returns it with
// the file's name; any other name (a path, another kind's file, a file
// name) is a *runapi.ArtifactError naming the kind's names.
func (m *Manager) OpenArtifact(ctx context.Context, id, api string, follow bool) (io.ReadCloser, string, error) {
	run, err := m.Get(id)
	if err != nil {
		return nil, "", err
	}
	k, err := kindOf(&run.Request)
	if err != nil {
		return nil, "", fmt.Errorf("run %s: %w", id, err)
	}
	kind, _ := run.Request.Kind() // kindOf has checked it
	name, err := runapi.ArtifactFile(kind, k.artifacts(), api)
	if err != nil {
		return nil, "", err
	}
	rc, err := m.OpenLog(ctx, id, name, follow)
	return rc, name, err
}

// openRunFile opens a file of a run's directory for reading: the file
// itself, never what a symlink of that name points to (O_NOFOLLOW), and
// only a regular file (a FIFO or device is not opened for reading: no
// blocking open, O_NONBLOCK); a run's tree that could plant either
// would otherwise have the daemon serve or hang on it.
func openRunFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%w: %s is a symlink, not a file of the run (not served)", ErrNotFound, filepath.Base(path))
	}
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%w: %s is a %v, not a regular file of the run (not served)", ErrNotFound, filepath.Base(path), st.Mode().Type())
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// OpenLog opens file name of run id's directory (a name of its kind's
// artifact table: OpenArtifact checks it). With follow, reads block at
// the end of the file until more is written or the run has ended; ctx
// ends the stream early.
func (m *Manager) OpenLog(ctx context.Context, id, name string, follow bool) (io.ReadCloser, error) {
	if _, err := m.Get(id); err != nil {
		return nil, err
	}
	f, err := openRunFile(m.store.RunFile(id, name))
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
			f, err := openRunFile(r.path)
			switch {
			case err == nil:
				r.f = f
			case !errors.Is(err, os.ErrNotExist):
				return 0, err
			case ar == nil:
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
