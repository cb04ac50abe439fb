package runbox

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/internal/container"
	"github.com/authbench/authbench/internal/lifecycle"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/sandbox"
)

// Gated is one container of a run whose init is sandbox-init:
// runc starts `/.authbench/authbench sandbox-init`, which waits at its
// gate (descriptors 3 and 4, passed by runc --preserve-fds) until the
// tracer follows it; then it applies spec and execs the command. The
// agent and the verifiers run this way, so that both are traced from
// their first exec.
type Gated struct {
	Name    string                                   // the container's id suffix and bundle name
	Config  env.RunConfig                            // TaskRunConfig, with any binds; Rootfs, Args, Binary, Env, UID are set here
	Launch  sandbox.Launch                           // what sandbox-init does (sandbox.ReportExit: the tree is kept)
	Stdio   env.Stdio                                // stdout and stderr
	Timeout time.Duration                            // the command's time
	Track   func(ctx context.Context, pid int) error // nil: untraced
	Started func()                                   // nil, or called once runc was started (or failed to)
}

// keepsTree: sandbox-init reaps the command and reports its end
// (Launch.WaitTree and ReportExit, set by sandbox.ReportExit when the
// launch was built), so the container outlives it while what it left
// runs: RunGated returns when the command ended, with the container in
// GatedResult.Kept.
func (g *Gated) keepsTree() bool { return g.Launch.ReportExit }

// Kept is a gated container whose command ended while processes it left
// still run in it (confined as the command was).
type Kept struct {
	c    *container.Container
	gate *sandbox.Gate
	// Ended is when its command was seen to end.
	Ended time.Time
}

// Pid is the container init's pid (host PID namespace).
func (k *Kept) Pid() int { return k.c.Pid() }

// Kill kills what is left in the container and deletes it; it returns
// the processes that were still running. Safe on nil.
func (k *Kept) Kill() []runapi.Process {
	if k == nil {
		return nil
	}
	left := lifecycle.TreeProcesses(k.c.Pid())
	k.c.Kill()
	k.gate.CloseStatus()
	return left
}

// GatedResult is how a gated container ended.
type GatedResult struct {
	env.RunResult
	// StartErr: the command never ran (the container, tracking or
	// sandbox-init failed); WaitErr: it ran but its end was not seen.
	StartErr, WaitErr error
	// StartTimedOut: its time ran out before it started.
	StartTimedOut bool
	// Setup is the time from the container's start to the command's exec.
	Setup time.Duration
	// StillRunning were its processes when it was killed.
	StillRunning []runapi.Process
	// Kept is the container still running after its command ended
	// (a launch built with sandbox.ReportExit; nil when nothing was left
	// or it was killed).
	Kept *Kept
}

// RunGated runs g's container to its end: track at the gate, release,
// wait, kill when its time is up (the life of every run, lifecycle.Run).
func (b *Box) RunGated(ctx context.Context, g Gated) GatedResult {
	var out GatedResult
	gate, err := sandbox.NewGate(g.Launch)
	if err != nil {
		out.StartErr = err
		return out
	}
	defer gate.Close()
	defer func() {
		if out.Kept == nil {
			gate.CloseStatus()
		}
	}()
	cfg := g.Config
	cfg.Rootfs, cfg.Binary = b.Rootfs.Path, b.Self
	if !cfg.AllowInternet && cfg.NetNSPath == "" {
		cfg.NetNSPath = b.NetNS
	}
	cfg.Args = []string{BinaryInContainer, sandbox.InitCommand}
	cfg.Env = []string{"GOMAXPROCS=1"} // sandbox-init's own; the command gets spec.Env
	cfg.UID, cfg.GID = 0, 0            // sandbox-init drops to the command's uid itself
	runSpec, err := env.RuntimeSpec(cfg)
	if err != nil {
		out.StartErr = err
		return out
	}
	c, err := container.Start(container.Config{
		Runc: b.Runc, ID: b.ID + "-" + g.Name, Bundle: filepath.Join(b.Dir, "bundle-"+g.Name), Spec: runSpec,
		Stdio: g.Stdio, Gate: gate, BeforeRelease: b.beforeRelease,
	})
	if g.Started != nil {
		g.Started()
	}
	if err != nil {
		out.StartErr = fmt.Errorf("start %s container: %w", g.Name, err)
		return out
	}
	runCtx, cancel := context.WithTimeout(ctx, g.Timeout)
	defer cancel()
	if _, out.StartErr = c.WaitPid(runCtx); out.StartErr != nil {
		c.Kill()
	} else {
		var track func(int) error
		if g.Track != nil {
			track = func(pid int) error { return g.Track(runCtx, pid) }
		}
		steps := lifecycle.Steps{KillGrace: container.KillGrace, Track: track}
		var res lifecycle.Result
		if g.keepsTree() {
			var kept bool
			if res, kept = container.RunCommand(runCtx, c, steps, gate.CommandEnded()); kept {
				out.Kept = &Kept{c: c, gate: gate, Ended: time.Now()}
				out.RunResult = env.RunResult{ExitCode: res.Status, Duration: time.Since(c.Started())}
				out.Setup = c.Setup()
				return out
			}
		} else {
			res = container.Run(runCtx, c, steps)
		}
		out.StillRunning = res.StillRunning
		_, waited, waitErr := c.Ended()
		switch {
		case res.StartErr == nil:
		case waited && res.StartErr == waitErr:
			out.WaitErr = waitErr // the command ran
		default:
			out.StartErr = res.StartErr // tracking or sandbox-init failed, or the container was not reaped in time
		}
	}
	out.RunResult, _, _ = c.Ended()
	out.Setup = c.Setup()
	if out.StartErr != nil && ctx.Err() == nil && errors.Is(runCtx.Err(), context.DeadlineExceeded) {
		// Its time ran out while the container was starting: a timeout
		// like any other, not a failure of the run.
		out.StartTimedOut, out.TimedOut = true, true
	}
	return out
}

// beforeRelease waits, when nothing traces the container, until its
// init (pid) is sandbox-init: runc holds copies of the gate's
// descriptors, so the exec is then seen as the init changing program.
func (b *Box) beforeRelease(pid int) error {
	if b.Tracer != nil {
		return nil // the tracer waited for it
	}
	return WaitForExe(context.Background(), pid, BinaryInContainer)
}
