package taskrun

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

// gatedContainer is one container of a run whose init is sandbox-init:
// runc starts `/.authbench/authbench sandbox-init`, which waits at its
// gate (descriptors 3 and 4, passed by runc --preserve-fds) until the
// tracer follows it; then it applies spec and execs the command. The
// agent and the verifiers run this way, so that both are traced from
// their first exec.
type gatedContainer struct {
	name    string                                   // the container's id suffix and bundle name
	cfg     env.RunConfig                            // TaskRunConfig, with any binds; Rootfs, Args, Binary, Env, UID are set here
	spec    sandbox.Spec                             // what sandbox-init does
	stdio   env.Stdio                                // stdout and stderr
	timeout time.Duration                            // the command's time
	track   func(ctx context.Context, pid int) error // nil: untraced
	started func()                                   // nil, or called once runc was started (or failed to)
}

// gatedResult is how a gated container ended.
type gatedResult struct {
	env.RunResult
	// startErr: the command never ran (the container, tracking or
	// sandbox-init failed); waitErr: it ran but its end was not seen.
	startErr, waitErr error
	// startTimedOut: its time ran out before it started.
	startTimedOut bool
	// setup is the time from the container's start to the command's exec.
	setup time.Duration
	// stillRunning were its processes when it was killed.
	stillRunning []lifecycle.Process
}

// runGated runs g's container to its end: track at the gate, release,
// wait, kill when its time is up (the life of every run, lifecycle.Run).
func (r *runner) runGated(ctx context.Context, g gatedContainer) gatedResult {
	var out gatedResult
	gate, err := sandbox.NewGate(g.spec)
	if err != nil {
		out.startErr = err
		return out
	}
	defer gate.Close()
	cfg := g.cfg
	cfg.Rootfs, cfg.Binary, cfg.NetNSPath = r.rootfs.Path, r.o.Self, r.netns
	cfg.Args = []string{binaryInContainer, sandbox.InitCommand}
	cfg.Env = []string{"GOMAXPROCS=1"} // sandbox-init's own; the command gets spec.Env
	cfg.UID, cfg.GID = 0, 0            // sandbox-init drops to the command's uid itself
	runSpec, err := env.RuntimeSpec(cfg)
	if err != nil {
		out.startErr = err
		return out
	}
	bundle := filepath.Join(r.o.Dir, "bundle-"+g.name)
	if err := env.WriteBundle(bundle, runSpec); err != nil {
		out.startErr = err
		return out
	}
	defer os.RemoveAll(bundle)

	ready := time.Now()
	stdio := g.stdio
	stdio.ExtraFiles = gate.ChildFiles()
	c, err := r.o.Runc.Start(bundle, r.id+"-"+g.name, stdio)
	gate.Started()
	if g.started != nil {
		g.started()
	}
	if err != nil {
		out.startErr = fmt.Errorf("start %s container: %w", g.name, err)
		return out
	}
	runCtx, cancel := context.WithTimeout(ctx, g.timeout)
	defer cancel()
	tree := &gatedTree{r: r, gate: gate, c: c, ctx: runCtx, kill: cancel, ready: ready}
	if tree.pid, out.startErr = c.Pid(runCtx); out.startErr != nil {
		cancel() // kill the container
		tree.Wait()
	} else {
		var track func(int) error
		if g.track != nil {
			track = func(pid int) error { return g.track(runCtx, pid) }
		}
		res := lifecycle.Run(runCtx, tree, lifecycle.Steps{KillGrace: containerKillGrace, Track: track})
		out.stillRunning = res.StillRunning
		switch {
		case res.StartErr == nil:
		case tree.waited && res.StartErr == tree.waitErr:
			out.waitErr = tree.waitErr // the command ran
		default:
			out.startErr = res.StartErr // tracking or sandbox-init failed, or the container was not reaped in time
		}
	}
	out.RunResult, out.setup = tree.res, tree.setup
	if out.startErr != nil && ctx.Err() == nil && errors.Is(runCtx.Err(), context.DeadlineExceeded) {
		// Its time ran out while the container was starting: a timeout
		// like any other, not a failure of the run.
		out.startTimedOut, out.TimedOut = true, true
	}
	return out
}

// containerKillGrace is how long a killed container may take to end
// (runc kill, then runc itself killed after 10 s).
const containerKillGrace = 15 * time.Second

// gatedTree is a gated container as a lifecycle.Tree.
type gatedTree struct {
	r     *runner
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
	err := t.r.release(t.gate, t.pid)
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
func (r *runner) release(gate *sandbox.Gate, pid int) error {
	if r.o.Tracer == nil {
		// Without the tracer nobody waited for the init to be sandbox-init.
		if err := waitForExe(context.Background(), pid, binaryInContainer); err != nil {
			return err
		}
	}
	return gate.ReleaseProcess(pid)
}
