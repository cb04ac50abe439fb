package core

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"go.uber.org/zap"
	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/daemon"
	"github.com/authbench/authbench/daemon/work"
)

// EmbedConfig is how a command embeds the daemon when none listens.
type EmbedConfig struct {
	// StateDir holds the run records; "" is a fresh directory of this
	// process's alone (embeddedStateDir), removed when it closes.
	StateDir string
	// Tracer traces the command runs that ask for it (nil: none).
	Tracer daemon.Tracer
	// Work carries out task runs, generations and builds (nil: the
	// daemon runs commands only).
	Work work.Kinds
	// Watchdog claims StateDir and starts the watchdog, which recovers
	// the runs in flight (containers, overlays, records) when this
	// process ends, whatever ends it (Manager.Embed).
	Watchdog bool
	// OneShot: the daemon serves one command's one run (exec, trace), in
	// a fresh state directory: records are written once, at the end,
	// without fsync (daemon.Config.OneShot).
	OneShot bool
	// Release, when set, runs when the embedded daemon is released
	// (e.g. to close the tracer).
	Release func()
}

// embeddedShutdownGrace bounds the shutdown of an embedded daemon: its
// runs are aborted and recorded within it (a container's kill takes up
// to 15 s), else what is left is the watchdog's, or the next start's.
const embeddedShutdownGrace = 30 * time.Second

// Embedded is the daemon embedded in this process.
type Embedded struct {
	// Local is its run API.
	Local    *daemon.Local
	m        *daemon.Manager
	emb      *daemon.Embedded
	tmpState string // removed when it closes
	release  func()
}

// Embed makes the one embedded daemon of every command that runs
// without a daemon (exec, trace, task run, bench, generate, oracle):
// its state directory, its Manager and, when asked, its watchdog. Close
// it with Close. Whatever happens, c.Release runs once it is released.
func Embed(log *zap.Logger, c EmbedConfig) (*Embedded, error) {
	e := &Embedded{release: c.Release}
	self, err := os.Executable()
	if err != nil {
		e.free()
		return nil, fmt.Errorf("find own executable: %w", err)
	}
	if c.StateDir == "" {
		if c.StateDir, err = embeddedStateDir(); err != nil {
			e.free()
			return nil, err
		}
		e.tmpState = c.StateDir
	}
	e.m, err = daemon.NewManager(daemon.Config{StateDir: c.StateDir, Work: c.Work,
		Self: self, Tracer: c.Tracer, OneShot: c.OneShot && e.tmpState != "", Log: log})
	if err != nil {
		e.free()
		return nil, err
	}
	if c.Watchdog {
		if e.emb, err = e.m.Embed(self); err != nil {
			e.free()
			return nil, err
		}
	}
	e.Local = daemon.NewLocal(e.m)
	return e, nil
}

// Close shuts the embedded daemon down within embeddedShutdownGrace
// (aborting what still runs), stops its watchdog, releases what it was
// given and removes a temporary state directory; a failure is logged as
// an error and returned.
func (e *Embedded) Close(log *zap.Logger) error {
	ctx, cancel := context.WithTimeout(context.Background(), embeddedShutdownGrace)
	defer cancel()
	err := e.m.Shutdown(ctx)
	if err != nil {
		log.Error("embedded daemon", zap.Error(err))
	}
	e.free()
	return err
}

// free stops the watchdog, runs Release and removes a temporary state
// directory.
func (e *Embedded) free() {
	if e.emb != nil {
		e.emb.Stop()
	}
	if e.release != nil {
		e.release()
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

// ErrNoTracer refuses a traced run embedded in a binary without the
// tracer (the thin front hands such commands to the full CLI).
var ErrNoTracer = errors.New("tracing needs the full authbench binary (authbench-full)")

// embedRuns embeds the daemon for one run of exec or trace
// (App.EmbedRuns, else one without tracer).
func (a *App) embedRuns(traced bool, ringBytes int) (*Embedded, error) {
	if a.EmbedRuns != nil {
		return a.EmbedRuns(traced, ringBytes)
	}
	if traced {
		return nil, ErrNoTracer
	}
	return Embed(a.Log, EmbedConfig{OneShot: true})
}
