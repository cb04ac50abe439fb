package daemon

import (
	"context"
	"io"
	"os"
	"syscall"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
)

var (
	_ runapi.API = (*Local)(nil)
)

// Local is the API of a Manager embedded in this process, used by the CLI
// when no daemon listens; the caller is this process.
type Local struct {
	M    *Manager
	peer Peer
}

// NewLocal returns the embedded API of m for the current process.
func NewLocal(m *Manager) *Local {
	return &Local{M: m, peer: Peer{PID: int32(os.Getpid()), UID: uint32(os.Getuid()), GID: uint32(os.Getgid())}}
}

// Submit starts a run as this process.
func (l *Local) Submit(_ context.Context, req *runapi.RunRequest) (*runapi.Run, error) {
	return l.M.Submit(req, l.peer)
}

// Attachment connects an embedded run's tree to this process: its
// standard streams and the signals to forward to it. It is not part of
// the JSON API: only a Local submission carries one.
type Attachment struct {
	// Stdin, Stdout and Stderr become the tree's standard streams (an
	// *os.File is passed as is, so a terminal stays a terminal); the
	// run's stdout and stderr logs then stay empty.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Signals are forwarded to the tree while it runs (see
	// lifecycle.Forward): a root that is its PID namespace's init and
	// leaves a terminating signal to its default action is killed with
	// its tree, and the run's status is 128+N as for a plain process.
	Signals <-chan os.Signal
	// Plan, when set, is CompileRequestPlan of the request submitted with
	// it, which the caller compiled to check the request: the run
	// enforces it instead of compiling the same plan again.
	Plan *policy.Plan
}

// SubmitAttached starts a run as this process with its tree attached to
// att (ignored for task runs, whose agent's output is in their logs).
func (l *Local) SubmitAttached(_ context.Context, req *runapi.RunRequest, att *Attachment) (*runapi.Run, error) {
	return l.M.submit(req, l.peer, att)
}

// Get returns a run record.
func (l *Local) Get(_ context.Context, id string) (*runapi.Run, error) { return l.M.Get(id) }

// List returns every run record.
func (l *Local) List(context.Context) ([]*runapi.Run, error) { return l.M.List() }

// Cancel kills a run's tree.
func (l *Local) Cancel(_ context.Context, id string) (*runapi.Run, error) { return l.M.Cancel(id) }

// Signal forwards sig to the run's tree.
func (l *Local) Signal(_ context.Context, id string, sig syscall.Signal) error {
	return l.M.Signal(id, sig)
}

// Wait blocks until the run ended.
func (l *Local) Wait(ctx context.Context, id string) (*runapi.Run, error) { return l.M.Wait(ctx, id) }

// OpenLog streams one of the run's files by its API name (a name of its
// kind's artifact table; else a *runapi.ArtifactError).
func (l *Local) OpenLog(ctx context.Context, id, log string, follow bool) (io.ReadCloser, error) {
	rc, _, err := l.M.OpenArtifact(ctx, id, log, follow)
	return rc, err
}
