package taskrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/env"
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
	cfg.Rootfs, cfg.Binary = r.rootfs.Path, r.o.Self
	cfg.Args = []string{binaryInContainer, sandbox.InitCommand}
	cfg.Env = []string{"GOMAXPROCS=1"} // sandbox-init's own; the agent gets spec.Env
	cfg.UID, cfg.GID = 0, 0            // sandbox-init drops to the agent's uid after Landlock
	cfg.Binds = append(cfg.Binds, env.Bind{Source: filepath.Join(t.Dir, "solution"), Destination: solutionMount, ReadOnly: true})
	runSpec, err := env.RuntimeSpec(cfg)
	if err != nil {
		return err
	}
	bundle := filepath.Join(r.o.Dir, "bundle-agent")
	if err := env.WriteBundle(bundle, runSpec); err != nil {
		return err
	}
	defer os.RemoveAll(bundle)
	stdout, err := os.Create(filepath.Join(r.o.Dir, AgentStdoutFile))
	if err != nil {
		return err
	}
	defer stdout.Close()
	stderr, err := os.Create(filepath.Join(r.o.Dir, AgentStderrFile))
	if err != nil {
		return err
	}
	defer stderr.Close()

	ready := time.Now()
	c, err := r.o.Runc.Start(bundle, r.id+"-agent", env.Stdio{Stdout: stdout, Stderr: stderr, ExtraFiles: gate.ChildFiles()})
	gate.Started()
	if err != nil {
		return fmt.Errorf("start agent container: %w", err)
	}
	timeout := seconds(t.Config.Agent.TimeoutSec, defaultAgentTimeout)
	agentCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	rec, startErr := r.startAgentTrace(agentCtx, c)
	if startErr == nil {
		startErr = r.releaseAgent(gate, c)
		r.res.SetupMS = float64(time.Since(ready)) / float64(time.Millisecond)
	}
	if startErr != nil {
		cancel() // kill the container
	}
	res, waitErr := c.Wait(agentCtx)
	r.finishAgentTrace(rec)
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
	uid, gid := taskUser(r.o.Task)
	spec := sandbox.Spec{
		Path: argv[0], Args: argv, Env: env.MergeEnv(cfg.Env, []string{"HOME=/tmp"}), Dir: dir,
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

// agentTrace records the agent's events and notes its sensitive accesses.
type agentTrace struct {
	rec       *audit.Recording
	sensitive *sensitiveMatcher
}

// startAgentTrace waits until the container's init is sandbox-init at its
// gate and follows it from its exec of the agent on.
func (r *runner) startAgentTrace(ctx context.Context, c *env.Container) (*agentTrace, error) {
	pid, err := c.Pid(ctx)
	if err != nil {
		return nil, err
	}
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
	tr.rec, err = audit.Record(sess, filepath.Join(r.o.Dir, EventsFile), audit.New(r.plan, root.RealpathNow), tr.observe)
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
	r.res.Events, r.res.LostEvents = sum.Events, sum.Lost
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

// releaseAgent lets sandbox-init go on; runc holds copies of the gate's
// descriptors, so the exec is seen as the init process changing program.
func (r *runner) releaseAgent(gate *sandbox.Gate, c *env.Container) error {
	pid, err := c.Pid(context.Background())
	if err != nil {
		return err
	}
	if r.o.Tracer == nil {
		// Without the tracer nobody waited for the init to be sandbox-init.
		if err := waitForExe(context.Background(), pid, binaryInContainer); err != nil {
			return err
		}
	}
	return gate.ReleaseProcess(pid)
}
