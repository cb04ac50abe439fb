package cli

import (
	"errors"

	"github.com/authbench/authbench/cli/core"
	"github.com/authbench/authbench/daemon"
	"github.com/authbench/authbench/daemon/taskwork"
	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/tracer"
)

// embedConfig is how a command of the full CLI embeds the daemon when
// none listens: core's, with the tracer and the task work.
type embedConfig struct {
	// stateDir holds the run records; "" is a fresh directory of this
	// process's alone, removed when it closes.
	stateDir string
	// imagesDir and registries are where task images are kept and what
	// they are pulled from (task runs).
	imagesDir  string
	registries []env.Registry
	// trace loads the tracer, with a ring of ringBytes (0: the default).
	trace     bool
	ringBytes int
	// watchdog: see core.EmbedConfig.Watchdog.
	watchdog bool
	// oneShot: see core.EmbedConfig.OneShot.
	oneShot bool
}

// tracerError is a failure to load the tracer of an embedded daemon.
type tracerError struct{ err error }

func (e tracerError) Error() string { return e.err.Error() }
func (e tracerError) Unwrap() error { return e.err }

// embed makes the one embedded daemon of every command that runs
// without a daemon (exec, trace, task run, bench, generate, oracle):
// core.Embed with the tracer, when asked, and the task work. Close it
// with closeEmbedded.
func (a *app) embed(c embedConfig) (*core.Embedded, error) {
	var tr *tracer.Tracer
	var release func()
	if c.trace {
		var err error
		if tr, err = tracer.Load(tracer.Options{RingBytes: c.ringBytes}, a.Log); err != nil {
			return nil, tracerError{err}
		}
		release = func() { tr.Close() }
	}
	return core.Embed(a.Log, core.EmbedConfig{StateDir: c.stateDir, Tracer: daemonTracer(tr),
		Work:     taskwork.New(taskwork.Config{ImagesDir: c.imagesDir, Registries: c.registries, Tracer: tr}),
		Watchdog: c.watchdog, OneShot: c.oneShot, Release: release})
}

// embedRuns is the full CLI's core.App.EmbedRuns: the runs of exec and
// trace, traced or not.
func (a *app) embedRuns(traced bool, ringBytes int) (*core.Embedded, error) {
	return a.embed(embedConfig{trace: traced, ringBytes: ringBytes, oneShot: true})
}

// closeEmbedded shuts the embedded daemon e down (core.Embedded.Close).
func (a *app) closeEmbedded(e *core.Embedded) error { return e.Close(a.Log) }

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
