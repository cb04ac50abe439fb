// Package container is the one container object through which a run
// starts, tracks, signals, waits for, stops and deletes each of its runc
// containers: the agent,
// each verifier, a model agent's toolbox (and its restart), a generator,
// the compose services, and any process a run adds beside them. Start
// writes the bundle and starts runc; a gated container's init waits at
// the sandbox-init gate (Config.Gate) until Release. A Container is a
// lifecycle.Tree, so Run lives it through lifecycle.Run: tracked at the
// gate, released, waited for, and killed with everything in it when its
// context ends. Stop (SIGTERM, then SIGKILL after a grace) and Kill end
// a container that runs beside the run (a compose service). Whatever
// ends it, the container is deleted (runc delete) and its bundle removed
// before Wait, Stop, Kill or Run return (Run: unless a kill was not
// reaped within its grace; then once runc ends, in the background):
// nothing of it is left running.
//
// As runc's libcontainer, a Container has a status (Created, Running,
// Stopped, Destroyed) that only moves forward along a checked table, and
// it signals its init through a pidfd taken when its pid is learnt (the
// init still waits at its gate then, or has just been created), never by
// a bare kill(pid): once the init has ended, Signal returns a
// *lifecycle.ExitedError and no process that was given its pid since is
// ever signalled.
//
// Use:
//
//	c, err := container.Start(container.Config{Runc: rc, ID: id, Bundle: dir, Spec: spec, Stdio: stdio})
//	if err != nil { ... }
//	defer c.Kill()                    // a service: or c.Stop(grace)
//	pid, err := c.WaitPid(ctx)        // the init's host pid
//	res := container.Run(ctx, c, lifecycle.Steps{KillGrace: container.KillGrace})
package container

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	specs "github.com/opencontainers/runtime-spec/specs-go"
	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/internal/lifecycle"
	"github.com/authbench/authbench/sandbox"
)

// KillGrace is how long a killed container may take to end (runc kill,
// then runc itself killed after 10 s) before Run gives up waiting.
const KillGrace = 15 * time.Second

// Config describes one container.
type Config struct {
	// Runc runs it.
	Runc env.Runc
	// ID is its runc id, unique among the containers running.
	ID string
	// Bundle is the directory its spec is written to (config.json);
	// removed when the container is deleted.
	Bundle string
	// Spec is its OCI runtime spec.
	Spec *specs.Spec
	// Stdio are its standard streams.
	Stdio env.Stdio
	// Gate, when set, is the sandbox-init gate its init waits at: its
	// descriptors are passed to the container (runc --preserve-fds) and
	// Release opens it. Nil: the init runs at once.
	Gate *sandbox.Gate
	// BeforeRelease, when set, runs before the gate opens, with the
	// init's pid (e.g. waits until it is sandbox-init).
	BeforeRelease func(pid int) error
}

// Container is one started container.
type Container struct {
	cfg  Config
	c    *env.Container
	pid  int
	kill sync.Once
	// start is when runc was started; setup the time from it to the
	// command's exec (Release).
	start time.Time
	setup time.Duration

	res     env.RunResult
	waitErr error
	waited  bool
	mu      sync.Mutex
	killed  bool
	status  Status
	// proc is the init's pidfd, taken by WaitPid.
	proc *lifecycle.Process
}

// Start writes cfg's bundle and starts the container under runc without
// waiting for it; one of Wait, Run, Stop or Kill must follow. The gate's
// Started is called whether runc started or not. An error leaves nothing
// behind.
func Start(cfg Config) (*Container, error) {
	if err := env.WriteBundle(cfg.Bundle, cfg.Spec); err != nil {
		return nil, err
	}
	stdio := cfg.Stdio
	if cfg.Gate != nil {
		stdio.ExtraFiles = append(append([]*os.File(nil), stdio.ExtraFiles...), cfg.Gate.ChildFiles()...)
	}
	start := time.Now()
	c, err := cfg.Runc.Start(cfg.Bundle, cfg.ID, stdio)
	if cfg.Gate != nil {
		cfg.Gate.Started()
	}
	if err != nil {
		os.RemoveAll(cfg.Bundle)
		return nil, fmt.Errorf("start container %s: %w", cfg.ID, err)
	}
	return &Container{cfg: cfg, c: c, start: start, res: env.RunResult{ExitCode: -1}, status: Created}, nil
}

// Status is where the container is in its life; a container whose init
// ended while nothing waited for it is Stopped.
func (c *Container) Status() Status {
	if c.c.Exited() {
		_ = c.moveTo(Stopped, "status")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.status
}

// moveTo moves the container's status forward to `to` along the
// transitions table (Created to Destroyed passes Stopped); a status that
// is already `to` stays. Moving back is a *StatusError naming op.
func (c *Container) moveTo(to Status, op string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.status != to {
		next, ok := c.status, false
		for _, s := range transitions[c.status] {
			if s <= to && (!ok || s > next) {
				next, ok = s, true
			}
		}
		if !ok {
			return &StatusError{ID: c.cfg.ID, Op: op, Status: c.status}
		}
		c.status = next
	}
	return nil
}

// ID is the container's runc id.
func (c *Container) ID() string { return c.cfg.ID }

// WaitPid waits until runc has created the container's init and returns
// its pid (host PID namespace); an error when runc ended first or ctx
// ended.
func (c *Container) WaitPid(ctx context.Context) (int, error) {
	pid, err := c.c.Pid(ctx)
	if err != nil {
		return pid, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pid == 0 {
		proc, err := c.openInit(pid)
		if err != nil {
			return pid, err
		}
		c.proc, c.pid = proc, pid
		if c.cfg.Gate == nil && c.status == Created {
			c.status = Running
		}
	}
	return pid, nil
}

// openInit takes the handle on the init, pid: the init is runc's child,
// not ours, so the handle is only kept when, once taken, it names a live
// process whose parent is still the container's runc (a pid reused since
// the init ended would have another parent). An init that has already
// ended gets no handle (nil, nil): there is nothing left to signal.
func (c *Container) openInit(pid int) (*lifecycle.Process, error) {
	proc, err := lifecycle.OpenProcess(pid)
	if errors.Is(err, unix.ESRCH) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("container %s: %w", c.cfg.ID, err)
	}
	if proc.Exited() || c.c.Exited() || parentOf(pid) != c.c.RuncPid() {
		_ = proc.Close()
		return nil, nil
	}
	return proc, nil
}

// parentOf is the parent pid of pid (0 when it cannot be read).
func parentOf(pid int) int {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	p, ok := lifecycle.ParseStat(string(stat))
	if !ok || p.Pid != pid {
		return 0
	}
	return p.PPid
}

// Pid is the init's pid, once WaitPid returned it.
func (c *Container) Pid() int { return c.pid }

// Release runs BeforeRelease and opens the gate (without a gate:
// nothing); it returns once the command was exec'd, or with
// sandbox-init's error.
func (c *Container) Release() error {
	if c.cfg.Gate == nil {
		return nil
	}
	if st := c.Status(); st != Created {
		return &StatusError{ID: c.cfg.ID, Op: "release", Status: st}
	}
	if c.cfg.BeforeRelease != nil {
		if err := c.cfg.BeforeRelease(c.pid); err != nil {
			return err
		}
	}
	if err := c.cfg.Gate.ReleaseProcess(c.pid); err != nil {
		return err
	}
	c.setup = time.Since(c.start)
	return c.moveTo(Running, "release")
}

// Started is when runc was started.
func (c *Container) Started() time.Time { return c.start }

// Setup is the time from runc's start to the command's exec, once
// Release returned.
func (c *Container) Setup() time.Duration { return c.setup }

// Wait waits for the container's init to end (a KillTree, Stop or Kill
// ends it), deletes the container and its bundle, and returns the init's
// status as a shell reports it. It may be called again: it reports the
// same end.
func (c *Container) Wait() (int, error) {
	res, err := c.c.Wait(context.Background())
	c.mu.Lock()
	if !c.waited {
		c.res, c.waitErr, c.waited = res, err, true
	}
	res, err = c.res, c.waitErr
	c.mu.Unlock()
	os.RemoveAll(c.cfg.Bundle)
	_ = c.moveTo(Destroyed, "wait")
	c.mu.Lock()
	_ = c.proc.Close()
	c.mu.Unlock()
	return res.ExitCode, err
}

// Ended is how the container ended, once a Wait returned (ok): its
// status, whether it was killed (KillTree, Stop or Kill: TimedOut) and
// runc's wall time, and Wait's error.
func (c *Container) Ended() (res env.RunResult, ok bool, waitErr error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	res = c.res
	res.TimedOut = res.TimedOut || c.killed
	return res, c.waited, c.waitErr
}

// KillTree kills every process of the container without waiting (Wait
// returns once runc reaped them).
func (c *Container) KillTree() error {
	c.mu.Lock()
	c.killed = true
	c.mu.Unlock()
	c.kill.Do(func() { go c.c.Kill() })
	return nil
}

// Signal sends sig to the container's init through its pidfd: a
// *lifecycle.ExitedError, with nothing signalled, once the init has
// ended (or the container is Stopped or Destroyed); a *StatusError
// before WaitPid learnt the init's pid.
func (c *Container) Signal(sig syscall.Signal) error { return c.signalIn(c.Status(), sig) }

// signalIn is Signal for a container in status st.
func (c *Container) signalIn(st Status, sig syscall.Signal) error {
	c.mu.Lock()
	proc, pid := c.proc, c.pid
	c.mu.Unlock()
	switch {
	case pid == 0:
		return &StatusError{ID: c.cfg.ID, Op: "signal " + sig.String() + " before its pid is known", Status: st}
	case st >= Stopped || proc == nil: // proc nil: the init ended before WaitPid took its handle
		return &lifecycle.ExitedError{Pid: pid, Signal: sig}
	}
	return proc.Signal(sig)
}

// Done is closed once the container's init has ended (runc's run ended).
func (c *Container) Done() <-chan struct{} { return c.c.Done() }

// Exited reports whether the container's init has ended.
func (c *Container) Exited() bool { return c.c.Exited() }

// Stop asks every process of the container to end (SIGTERM), kills what
// is left after grace, and deletes the container and its bundle; it
// reports whether the container ended within grace.
func (c *Container) Stop(grace time.Duration) bool {
	if !c.c.Exited() {
		c.mu.Lock()
		c.killed = true
		c.mu.Unlock()
	}
	ok := c.c.Stop(grace)
	_, _ = c.Wait()
	return ok
}

// Kill kills every process of the container and deletes it and its
// bundle.
func (c *Container) Kill() {
	if !c.c.Exited() {
		c.mu.Lock()
		c.killed = true
		c.mu.Unlock()
	}
	c.c.Kill()
	_, _ = c.Wait()
}

// Destroy ends whatever is left of the container (Kill) and makes sure
// runc no longer knows it and its bundle is gone; the container is then
// Destroyed. It may be called in any status and again.
func (c *Container) Destroy() error {
	c.Kill()
	if err := c.cfg.Runc.Delete(c.cfg.ID); err != nil {
		return fmt.Errorf("destroy container %s: %w", c.cfg.ID, err)
	}
	if err := os.RemoveAll(c.cfg.Bundle); err != nil {
		return fmt.Errorf("destroy container %s: %w", c.cfg.ID, err)
	}
	return c.moveTo(Destroyed, "destroy")
}

// Run lives c through lifecycle.Run: tracked (s.Track) while its init
// waits at the gate, released, waited for, and killed with everything in
// it when ctx ends (also while it is tracked or released). The container
// is deleted when Run returns, unless its kill was not reaped within
// s.KillGrace: then it is deleted in the background once runc ended
// (runc itself is killed 10 s after the kill).
func Run(ctx context.Context, c *Container, s lifecycle.Steps) lifecycle.Result {
	return lifecycle.Run(ctx, boundTree{c, ctx}, s)
}

// boundTree is a Container whose Wait kills it when ctx ends first.
type boundTree struct {
	*Container
	ctx context.Context
}

func (t boundTree) Wait() (int, error) {
	select {
	case <-t.c.Done():
	case <-t.ctx.Done():
		_ = t.KillTree()
	}
	return t.Container.Wait()
}

// RunCommand is Run for a container whose init reaps a command and stays
// for what the command left running (sandbox.Launch.ReportExit): it
// returns once ended delivers the command's status, and the container
// goes on running (Kill or Stop it later), or once the container itself
// ended or was killed (its time ran out, ctx ended), as Run does. kept
// reports that the container still runs.
func RunCommand(ctx context.Context, c *Container, s lifecycle.Steps, ended <-chan int) (res lifecycle.Result, kept bool) {
	t := &commandTree{boundTree: boundTree{c, ctx}, ended: ended}
	res = lifecycle.Run(ctx, t, s)
	return res, t.kept
}

// commandTree is a boundTree whose Wait returns when its command ended.
type commandTree struct {
	boundTree
	ended <-chan int
	kept  bool
}

func (t *commandTree) Wait() (int, error) {
	select {
	case status, ok := <-t.ended:
		if ok && !t.c.Exited() {
			t.kept = true
			return status, nil
		}
	case <-t.c.Done():
	case <-t.ctx.Done():
		_ = t.KillTree()
	}
	return t.Container.Wait()
}
