package runbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/internal/lifecycle"
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
	Spec    sandbox.Spec                             // what sandbox-init does
	Stdio   env.Stdio                                // stdout and stderr
	Timeout time.Duration                            // the command's time
	Track   func(ctx context.Context, pid int) error // nil: untraced
	Started func()                                   // nil, or called once runc was started (or failed to)
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
	StillRunning []lifecycle.Process
}

// RunGated runs g's container to its end: track at the gate, release,
// wait, kill when its time is up (the life of every run, lifecycle.Run).
func (b *Box) RunGated(ctx context.Context, g Gated) GatedResult {
	var out GatedResult
	gate, err := sandbox.NewGate(g.Spec)
	if err != nil {
		out.StartErr = err
		return out
	}
	defer gate.Close()
	cfg := g.Config
	cfg.Rootfs, cfg.Binary, cfg.NetNSPath = b.Rootfs.Path, b.Self, b.NetNS
	cfg.Args = []string{BinaryInContainer, sandbox.InitCommand}
	cfg.Env = []string{"GOMAXPROCS=1"} // sandbox-init's own; the command gets spec.Env
	cfg.UID, cfg.GID = 0, 0            // sandbox-init drops to the command's uid itself
	runSpec, err := env.RuntimeSpec(cfg)
	if err != nil {
		out.StartErr = err
		return out
	}
	bundle := filepath.Join(b.Dir, "bundle-"+g.Name)
	if err := env.WriteBundle(bundle, runSpec); err != nil {
		out.StartErr = err
		return out
	}
	defer os.RemoveAll(bundle)

	ready := time.Now()
	stdio := g.Stdio
	stdio.ExtraFiles = gate.ChildFiles()
	c, err := b.Runc.Start(bundle, b.ID+"-"+g.Name, stdio)
	gate.Started()
	if g.Started != nil {
		g.Started()
	}
	if err != nil {
		out.StartErr = fmt.Errorf("start %s container: %w", g.Name, err)
		return out
	}
	runCtx, cancel := context.WithTimeout(ctx, g.Timeout)
	defer cancel()
	tree := &gatedTree{b: b, gate: gate, c: c, ctx: runCtx, kill: cancel, ready: ready}
	if tree.pid, out.StartErr = c.Pid(runCtx); out.StartErr != nil {
		cancel() // kill the container
		tree.Wait()
	} else {
		var track func(int) error
		if g.Track != nil {
			track = func(pid int) error { return g.Track(runCtx, pid) }
		}
		res := lifecycle.Run(runCtx, tree, lifecycle.Steps{KillGrace: containerKillGrace, Track: track})
		out.StillRunning = res.StillRunning
		switch {
		case res.StartErr == nil:
		case tree.waited && res.StartErr == tree.waitErr:
			out.WaitErr = tree.waitErr // the command ran
		default:
			out.StartErr = res.StartErr // tracking or sandbox-init failed, or the container was not reaped in time
		}
	}
	out.RunResult, out.Setup = tree.res, tree.setup
	if out.StartErr != nil && ctx.Err() == nil && errors.Is(runCtx.Err(), context.DeadlineExceeded) {
		// Its time ran out while the container was starting: a timeout
		// like any other, not a failure of the run.
		out.StartTimedOut, out.TimedOut = true, true
	}
	return out
}

// containerKillGrace is how long a killed container may take to end
// (runc kill, then runc itself killed after 10 s).
const containerKillGrace = 15 * time.Second

// gatedTree is a gated container as a lifecycle.Tree.
type gatedTree struct {
	b     *Box
	gate  *sandbox.Gate
	c     *env.Container
	pid   int
	ctx   context.Context
	kill  context.CancelFunc
	ready time.Time
	setup time.Duration

	res     env.RunResult
	waitErr error
	waited  bool
}

func (t *gatedTree) Pid() int { return t.pid }

// Release opens the gate and records the set-up time.
func (t *gatedTree) Release() error {
	err := t.b.release(t.gate, t.pid)
	if err == nil {
		t.setup = time.Since(t.ready)
	}
	return err
}

// Wait waits for the container (killing it when its time is up) and
// deletes it.
func (t *gatedTree) Wait() (int, error) {
	t.res, t.waitErr = t.c.Wait(t.ctx)
	t.waited = true
	return t.res.ExitCode, t.waitErr
}

// KillTree kills every process of the container (through Wait's context).
func (t *gatedTree) KillTree() error {
	t.kill()
	return nil
}

// Signal sends sig to the container's init.
func (t *gatedTree) Signal(sig syscall.Signal) error { return syscall.Kill(t.pid, sig) }

// release lets sandbox-init go on; runc holds copies of the gate's
// descriptors, so the exec is seen as the init process changing program.
func (b *Box) release(gate *sandbox.Gate, pid int) error {
	if b.Tracer == nil {
		// Without the tracer nobody waited for the init to be sandbox-init.
		if err := WaitForExe(context.Background(), pid, BinaryInContainer); err != nil {
			return err
		}
	}
	return gate.ReleaseProcess(pid)
}
