package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"go.uber.org/zap"
	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/daemon"
	"github.com/authbench/authbench/daemon/taskwork"
	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/tracer"
)

// embedConfig is how a command embeds the daemon when none listens.
type embedConfig struct {
	// stateDir holds the run records; "" is a fresh directory of this
	// process's alone (embeddedStateDir), removed when it closes.
	stateDir string
	// imagesDir and registries are where task images are kept and what
	// they are pulled from (task runs).
	imagesDir  string
	registries []env.Registry
	// trace loads the tracer, with a ring of ringBytes (0: the default).
	trace     bool
	ringBytes int
	// watchdog claims stateDir and starts the watchdog, which recovers
	// the runs in flight (containers, overlays, records) when this
	// process ends, whatever ends it (Manager.Embed).
	watchdog bool
	// oneShot: the daemon serves one command's one run (exec, trace), in
	// a fresh state directory: records are written once, at the end,
	// without fsync (daemon.Config.OneShot).
	oneShot bool
}

// embeddedShutdownGrace bounds the shutdown of an embedded daemon: its
// runs are aborted and recorded within it (a container's kill takes up
// to 15 s), else what is left is the watchdog's, or the next start's.
const embeddedShutdownGrace = 30 * time.Second

// embedded is the daemon embedded in this process.
type embedded struct {
	local    *daemon.Local
	m        *daemon.Manager
	tr       *tracer.Tracer
	emb      *daemon.Embedded
	tmpState string // removed when it closes
}

// tracerError is a failure to load the tracer of an embedded daemon.
type tracerError struct{ err error }

func (e tracerError) Error() string { return e.err.Error() }
func (e tracerError) Unwrap() error { return e.err }

// embed makes the one embedded daemon of every command that runs
// without a daemon (exec, trace, task run, bench, generate, oracle):
// its state directory, its tracer, its Manager and, when asked, its
// watchdog. Close it with closeEmbedded.
func (a *app) embed(c embedConfig) (*embedded, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find own executable: %w", err)
	}
	e := &embedded{}
	if c.stateDir == "" {
		if c.stateDir, err = embeddedStateDir(); err != nil {
			return nil, err
		}
		e.tmpState = c.stateDir
	}
	if c.trace {
		if e.tr, err = tracer.Load(tracer.Options{RingBytes: c.ringBytes}, a.log); err != nil {
			e.release()
			return nil, tracerError{err}
		}
	}
	e.m, err = daemon.NewManager(daemon.Config{StateDir: c.stateDir,
		Work: taskwork.New(taskwork.Config{ImagesDir: c.imagesDir, Registries: c.registries, Tracer: e.tr}),
		Self: self, Tracer: daemonTracer(e.tr), OneShot: c.oneShot && e.tmpState != "", Log: a.log})
	if err != nil {
		e.release()
		return nil, err
	}
	if c.watchdog {
		if e.emb, err = e.m.Embed(self); err != nil {
			e.release()
			return nil, err
		}
	}
	e.local = daemon.NewLocal(e.m)
	return e, nil
}

// closeEmbedded shuts the embedded daemon e down within embeddedShutdownGrace
// (aborting what still runs), stops its watchdog, closes the tracer and
// removes a temporary state directory; a failure is logged as an error
// and returned.
func (a *app) closeEmbedded(e *embedded) error {
	ctx, cancel := context.WithTimeout(context.Background(), embeddedShutdownGrace)
	defer cancel()
	err := e.m.Shutdown(ctx)
	if err != nil {
		a.log.Error("embedded daemon", zap.Error(err))
	}
	e.release()
	return err
}

// release stops the watchdog, closes the tracer and removes a temporary
// state directory.
func (e *embedded) release() {
	if e.emb != nil {
		e.emb.Stop()
	}
	if e.tr != nil {
		e.tr.Close()
	}
	if e.tmpState != "" {
		os.RemoveAll(e.tmpState)
	}
}

// embeddedStateDir is a new directory for the records of one embedded
// run, removed when it ends: in /dev/shm when there is one, else in
// $TMPDIR.
// Embedded exec and trace runs are not kept; `authbench runs` lists the
// daemon's.
func embeddedStateDir() (string, error) {
	base := ""
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() && unix.Access("/dev/shm", unix.W_OK) == nil {
		base = "/dev/shm"
	}
	return os.MkdirTemp(base, "authbench-run-")
}

// isTracerError reports whether err is a failure to load the tracer.
func isTracerError(err error) bool {
	var te tracerError
	return errors.As(err, &te)
}

// daemonTracer is tr as a daemon's tracer of command runs: nil (no
// tracing) when tr is.
func daemonTracer(tr *tracer.Tracer) daemon.Tracer {
	if tr == nil {
		return nil
	}
	return tr
}
