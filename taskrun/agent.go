package taskrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/internal/capped"
	"github.com/authbench/authbench/internal/lifecycle"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/sandbox"
	"github.com/authbench/authbench/tracer"
)

// runAgent runs the agent as the container's init through sandbox-init:
// runc starts `/.authbench/authbench sandbox-init`, which waits at its
// gate (descriptors 3 and 4, passed by runc --preserve-fds) until the
// tracer follows it; then it confines itself and execs the agent.
func (r *runner) runAgent(ctx context.Context, argv []string) error {
	t := r.o.Task
	spec, err := r.agentSpec(argv)
	if err != nil {
		return err
	}
	gate, err := sandbox.NewGate(spec)
	if err != nil {
		return err
	}
	defer gate.Close()
	cfg := env.TaskRunConfig(t, r.image)
	cfg.Rootfs, cfg.Binary, cfg.NetNSPath = r.rootfs.Path, r.o.Self, r.netns
	cfg.Args = []string{binaryInContainer, sandbox.InitCommand}
	cfg.Env = []string{"GOMAXPROCS=1"} // sandbox-init's own; the agent gets spec.Env
	cfg.UID, cfg.GID = 0, 0            // sandbox-init drops to the agent's uid after Landlock
	runSpec, err := env.RuntimeSpec(cfg)
	if err != nil {
		return err
	}
	bundle := filepath.Join(r.o.Dir, "bundle-agent")
	if err := env.WriteBundle(bundle, runSpec); err != nil {
		return err
	}
	defer os.RemoveAll(bundle)
	stdout, stderr, err := r.agentOutput()
	if err != nil {
		return err
	}
	defer r.closeAgentOutput(stdout, stderr)

	ready := time.Now()
	c, err := r.o.Runc.Start(bundle, r.id+"-agent", env.Stdio{Stdout: stdout, Stderr: stderr, ExtraFiles: gate.ChildFiles()})
	gate.Started()
	if err != nil {
		return fmt.Errorf("start agent container: %w", err)
	}
	timeout := seconds(t.Config.Agent.TimeoutSec, defaultAgentTimeout)
	agentCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tree := &agentTree{r: r, gate: gate, c: c, ctx: agentCtx, kill: cancel, ready: ready}
	var rec *agentTrace
	var startErr, waitErr error
	if tree.pid, startErr = c.Pid(agentCtx); startErr != nil {
		cancel() // kill the container
		tree.Wait()
	} else {
		// The same life as every daemon run: track at the gate, release,
		// wait, kill when the agent's time is up.
		res := lifecycle.Run(agentCtx, tree, lifecycle.Steps{KillGrace: agentKillGrace, Track: func(pid int) error {
			var err error
			rec, err = r.startAgentTrace(agentCtx, pid)
			return err
		}})
		switch {
		case res.StartErr == nil:
		case tree.waited && res.StartErr == tree.waitErr:
			waitErr = tree.waitErr // the agent ran
		default:
			startErr = res.StartErr // tracking or sandbox-init failed, or the container was not reaped in time
		}
	}
	r.finishAgentTrace(rec)
	res := tree.res
	r.res.ExitCode, r.res.TimedOut, r.res.DurationS = res.ExitCode, res.TimedOut, res.Duration.Seconds()
	if startErr != nil && ctx.Err() == nil && errors.Is(agentCtx.Err(), context.DeadlineExceeded) {
		// The agent's time ran out while its container was starting: a
		// timeout like any other, not a failure of the run.
		r.log.Warn("the agent's timeout expired before it started", zap.String("task", t.Name), zap.Error(startErr))
		r.res.TimedOut = true
		startErr = nil
	}
	if startErr != nil {
		return fmt.Errorf("agent could not start: %w", startErr)
	}
	if waitErr != nil {
		return fmt.Errorf("agent: %w", waitErr)
	}
	r.log.Info("agent ended", zap.String("task", t.Name), zap.Int("exit", res.ExitCode), zap.Bool("timed_out", res.TimedOut))
	return nil
}

// agentSpec is what sandbox-init does inside the container: confine
// itself to the plan (when there is one) with the default seccomp
// profile, drop to the agent's uid and exec argv.
func (r *runner) agentSpec(argv []string) (sandbox.Spec, error) {
	cfg := env.TaskRunConfig(r.o.Task, r.image)
	dir := cfg.Cwd
	if dir == "" {
		dir = "/"
	}
	uid, gid := r.ident.UID, r.ident.GID
	spec := sandbox.Spec{
		Path: argv[0], Args: argv, Env: agentEnv(cfg.Env, r.ident), Dir: dir,
		UID: &uid, GID: &gid, CloseFDs: true,
	}
	if r.plan == nil {
		return spec, nil
	}
	filter, err := sandbox.DefaultFilter()
	if err != nil {
		return spec, err
	}
	return spec.Confined(r.plan, filter), nil
}

// agentEnv is the agent's environment: the image's, with HOME the
// user's home from /etc/passwd unless the image sets one (as a container
// runtime does).
func agentEnv(image []string, id Identity) []string {
	for _, kv := range image {
		if strings.HasPrefix(kv, "HOME=") {
			return env.MergeEnv(image, nil)
		}
	}
	return env.MergeEnv(image, []string{"HOME=" + id.Home})
}

// agentTrace records the agent's events and notes its sensitive accesses.
type agentTrace struct {
	rec       *audit.Recording
	sensitive *sensitiveMatcher
}

// startAgentTrace waits until the container's init (pid) is sandbox-init
// at its gate and follows it from its exec of the agent on.
func (r *runner) startAgentTrace(ctx context.Context, pid int) (*agentTrace, error) {
	if r.o.Tracer == nil {
		return nil, nil
	}
	if err := waitForExe(ctx, pid, binaryInContainer); err != nil {
		return nil, err
	}
	root, err := policy.NewRoot(r.rootfs.Path)
	if err != nil {
		return nil, err
	}
	sess, err := r.o.Tracer.TrackWith(pid, tracer.TrackOptions{FromExec: true})
	if err != nil {
		return nil, fmt.Errorf("trace agent: %w", err)
	}
	tr := &agentTrace{sensitive: newSensitiveMatcher(r.o.Task.Spec, root)}
	tr.rec, err = audit.RecordWith(sess, filepath.Join(r.o.Dir, EventsFile), audit.New(r.plan, root.RealpathNow), tr.observe,
		audit.RecordOptions{MaxBytes: r.o.MaxOutputBytes})
	if err != nil {
		return nil, err
	}
	r.res.Traced = true
	return tr, nil
}

// observe notes a successful access to a sensitive file.
func (tr *agentTrace) observe(ev *tracer.Event) { tr.sensitive.observe(ev) }

// finishAgentTrace closes the recording once the container has ended.
func (r *runner) finishAgentTrace(tr *agentTrace) {
	if tr == nil {
		return
	}
	sum, err := tr.rec.Close()
	if err != nil {
		r.log.Error("agent trace incomplete", zap.Error(err))
	}
	r.res.Events, r.res.LostEvents = sum.Events, sum.Lost+tr.rec.Dropped()
	r.res.Denials = append(r.res.Denials, tr.rec.Auditor.Denials()...)
	r.res.TracedSensitive = append(r.res.TracedSensitive, tr.sensitive.found...)
}

// waitForExe waits until process pid runs a program whose path (as the
// process sees it) ends with name: runc's init has exec'd it.
func waitForExe(ctx context.Context, pid int, name string) error {
	link := fmt.Sprintf("/proc/%d/exe", pid)
	for {
		exe, err := os.Readlink(link)
		if err == nil && strings.HasSuffix(exe, name) {
			return nil
		}
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("container init %d exited before it ran sandbox-init", pid)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("container init %d never became sandbox-init: %w", pid, ctx.Err())
		case <-time.After(time.Millisecond):
		}
	}
}

// agentKillGrace is how long a killed agent container may take to end
// (runc kill, then runc itself killed after 10 s).
const agentKillGrace = 15 * time.Second

// agentTree is the agent's container as a lifecycle.Tree: its init is
// sandbox-init waiting at its gate.
type agentTree struct {
	r     *runner
	gate  *sandbox.Gate
	c     *env.Container
	pid   int
	ctx   context.Context
	kill  context.CancelFunc
	ready time.Time

	res     env.RunResult
	waitErr error
	waited  bool
}

func (t *agentTree) Pid() int { return t.pid }

// Release opens the gate and records the set-up time.
func (t *agentTree) Release() error {
	err := t.r.releaseAgent(t.gate, t.pid)
	if err == nil {
		t.r.res.SetupMS = float64(time.Since(t.ready)) / float64(time.Millisecond)
	}
	return err
}

// Wait waits for the container (killing it when the agent's time is up)
// and deletes it.
func (t *agentTree) Wait() (int, error) {
	t.res, t.waitErr = t.c.Wait(t.ctx)
	t.waited = true
	return t.res.ExitCode, t.waitErr
}

// KillTree kills every process of the container (through Wait's context).
func (t *agentTree) KillTree() error {
	t.kill()
	return nil
}

// Signal sends sig to the container's init.
func (t *agentTree) Signal(sig syscall.Signal) error { return syscall.Kill(t.pid, sig) }

// releaseAgent lets sandbox-init go on; runc holds copies of the gate's
// descriptors, so the exec is seen as the init process changing program.
func (r *runner) releaseAgent(gate *sandbox.Gate, pid int) error {
	if r.o.Tracer == nil {
		// Without the tracer nobody waited for the init to be sandbox-init.
		if err := waitForExe(context.Background(), pid, binaryInContainer); err != nil {
			return err
		}
	}
	return gate.ReleaseProcess(pid)
}

// agentOutput creates the agent's stdout and stderr logs, each capped at
// Options.MaxOutputBytes (the agent never sees the cap).
func (r *runner) agentOutput() (stdout, stderr *capped.Writer, err error) {
	open := func(file, name string) (*capped.Writer, error) {
		f, err := os.Create(filepath.Join(r.o.Dir, file))
		if err != nil {
			return nil, err
		}
		return capped.NewWriter(f, name, r.o.MaxOutputBytes, nil), nil
	}
	if stdout, err = open(AgentStdoutFile, "agent stdout"); err != nil {
		return nil, nil, err
	}
	if stderr, err = open(AgentStderrFile, "agent stderr"); err != nil {
		stdout.Close()
		return nil, nil, err
	}
	return stdout, stderr, nil
}

// closeAgentOutput closes the agent's logs and records what was dropped.
func (r *runner) closeAgentOutput(stdout, stderr *capped.Writer) {
	for _, w := range []*capped.Writer{stdout, stderr} {
		if err := w.Close(); err != nil {
			r.log.Error("agent output", zap.Error(err))
			if r.res.Error == "" {
				r.res.Error = err.Error()
			}
		}
	}
	r.res.AgentStdoutDroppedBytes, r.res.AgentStderrDroppedBytes = stdout.Dropped(), stderr.Dropped()
}
