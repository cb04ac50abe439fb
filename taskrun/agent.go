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
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/sandbox"
	"github.com/authbench/authbench/tracer"
)

// runAgent runs the agent as its container's init through sandbox-init
// (runGated), confined by agentSpec and traced from its exec.
func (r *runner) runAgent(ctx context.Context, argv []string) error {
	t := r.o.Task
	spec, err := r.agentSpec(argv)
	if err != nil {
		return err
	}
	stdout, stderr, err := r.agentOutput()
	if err != nil {
		return err
	}
	defer r.closeAgentOutput(stdout, stderr)
	var rec *agentTrace
	track := func(ctx context.Context, pid int) error {
		var err error
		rec, err = r.startAgentTrace(ctx, pid)
		return err
	}
	if r.o.Tracer == nil {
		track = nil
	}
	r.agentStart = time.Now()
	g := r.runGated(ctx, gatedContainer{
		name: "agent", cfg: r.agentRunConfig(), spec: spec,
		stdio: env.Stdio{Stdout: stdout, Stderr: stderr}, timeout: seconds(t.Config.Agent.TimeoutSec, defaultAgentTimeout),
		track: track,
	})
	r.finishAgentTrace(rec)
	r.res.ExitCode, r.res.TimedOut, r.res.DurationS = g.ExitCode, g.TimedOut, g.Duration.Seconds()
	r.res.SetupMS = float64(g.setup) / float64(time.Millisecond)
	r.res.StillRunning = g.stillRunning
	if g.startTimedOut {
		r.log.Warn("the agent's timeout expired before it started", zap.String("task", t.Name), zap.Error(g.startErr))
		g.startErr = nil
	}
	if g.startErr != nil && r.policyRefusedAgent(g.startErr) {
		g.startErr = nil
	}
	if g.startErr != nil {
		return fmt.Errorf("agent could not start: %w", g.startErr)
	}
	if g.waitErr != nil {
		return fmt.Errorf("agent: %w", g.waitErr)
	}
	r.log.Info("agent ended", zap.String("task", t.Name), zap.Int("exit", g.ExitCode), zap.Bool("timed_out", g.TimedOut))
	return nil
}

// policyRefusedAgent reports whether err is the policy refusing the
// agent's program (sandbox-init's exec, or its PATH lookup, failed with
// EACCES under a plan that forbids it): then the agent failed (126, as a
// shell says) and the run did not; the refusal is the run's denial (the
// trace starts with the agent's first exec, so it cannot hold it).
func (r *runner) policyRefusedAgent(err error) bool {
	var ie *sandbox.InitError
	if r.plan == nil || !errors.As(err, &ie) || ie.Errno != syscall.EACCES ||
		ie.Stage != sandbox.StageExec && ie.Stage != sandbox.StageLookup {
		return false
	}
	r.log.Info("the policy refused the agent's program", zap.String("task", r.o.Task.Name), zap.Error(err))
	r.res.ExitCode = sandbox.ExitNotExecutable
	op := policy.Operation{Op: string(tracer.OpExec), Path: ie.Path}
	root, rerr := policy.NewRoot(r.rootfs.Path)
	if rerr == nil && !r.plan.Permits(op, root.RealpathNow) {
		r.res.Denials = append(r.res.Denials, audit.Denial{Op: op.Op, Axis: string(tracer.AxisExecute), Path: ie.Path, Errno: "EACCES", Count: 1})
	}
	return true
}

// agentRunConfig is the agent's container: the task's, its root holding
// the agent's capabilities too (sandbox-init narrows its set to them).
func (r *runner) agentRunConfig() env.RunConfig {
	cfg := env.TaskRunConfig(r.o.Task, r.image)
	cfg.AddCapabilities = r.caps
	return cfg
}

// agentSpec is what sandbox-init does inside the container: confine
// itself to the plan (when there is one) with the container seccomp
// profile (sandbox.ContainerProfile: set-ID modes allowed, the container
// being nosuid), keep the agent's capabilities (r.caps, with or without a
// plan), drop to the agent's uid and exec argv.
func (r *runner) agentSpec(argv []string) (sandbox.Spec, error) {
	cfg := env.TaskRunConfig(r.o.Task, r.image)
	dir := cfg.Cwd
	if dir == "" {
		dir = "/"
	}
	uid, gid := r.ident.UID, r.ident.GID
	spec := sandbox.Spec{
		Path: argv[0], Args: argv, Env: agentEnv(cfg.Env, r.ident), Dir: dir,
		UID: &uid, GID: &gid, Groups: r.ident.Groups, CloseFDs: true,
		DropCapabilities: true, Capabilities: r.caps,
	}
	if r.plan == nil {
		return spec, nil
	}
	filter, err := sandbox.ContainerFilter()
	if r.seccomp != nil {
		filter, err = r.seccomp, nil // a generation's (GenerationFilter)
	}
	if err != nil {
		return spec, err
	}
	return spec.Confined(r.plan, filter), nil
}

// agentEnv is the agent's environment: the image's, with HOME the
// user's home from /etc/passwd unless the image sets one (as a container
// runtime does).
func agentEnv(image []string, id runapi.Identity) []string {
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
	// runtime, when set, counts the refused opens of the toolbox's own
	// start-up (runtimeOpen), which are not the agent's denials.
	runtime *runtimeOpens
	// caps collects the agent's capability denials (EPERM of a chown,
	// chmod, setxattr, mknod or set-ID call), which the plan does not
	// decide and the run's denials list after the plan's.
	caps audit.CapabilityDenials
	// volumes, when set, collects the agent's writes into its volumes.
	volumes *volumeWrites
}

// startAgentTrace waits until the container's init (pid) is sandbox-init
// at its gate and follows it from its exec of the agent on.
func (r *runner) startAgentTrace(ctx context.Context, pid int) (*agentTrace, error) {
	return r.startAgentTraceTo(ctx, pid, EventsFile, nil)
}

// startAgentTraceTo is startAgentTrace into the run's file named file,
// counting the refused start-up opens of runtime (nil: none).
func (r *runner) startAgentTraceTo(ctx context.Context, pid int, file string, runtime *runtimeOpens) (*agentTrace, error) {
	root, err := policy.NewRoot(r.rootfs.Path)
	if err != nil {
		return nil, err
	}
	tr := &agentTrace{sensitive: newSensitiveMatcher(r.o.Task.Spec, root), runtime: runtime, volumes: r.volumeWrites}
	if tr.rec, err = r.traceContainer(ctx, pid, file, r.plan, root, tr.observe); err != nil {
		return nil, err
	}
	r.res.Traced = true
	return tr, nil
}

// traceContainer follows a gated container's init (pid) from its exec of
// the command on, once runc has made it sandbox-init, into the run's file,
// judging the events against plan (nil: none) in root; also sees each.
func (r *runner) traceContainer(ctx context.Context, pid int, file string, plan *policy.Plan, root *policy.Root, also func(*tracer.Event)) (*audit.Recording, error) {
	if err := waitForExe(ctx, pid, binaryInContainer); err != nil {
		return nil, err
	}
	sess, err := r.o.Tracer.TrackWith(pid, tracer.TrackOptions{FromExec: true})
	if err != nil {
		return nil, fmt.Errorf("trace %s: %w", file, err)
	}
	return audit.RecordWith(sess, filepath.Join(r.o.Dir, file), audit.NewInRoot(plan, root), also,
		audit.RecordOptions{MaxBytes: r.o.MaxOutputBytes})
}

// observe notes a successful access to a sensitive file, a capability
// denial and a write into a volume.
func (tr *agentTrace) observe(ev *tracer.Event) {
	tr.sensitive.observe(ev)
	tr.caps.Observe(ev)
	if tr.runtime != nil {
		tr.runtime.observe(ev)
	}
	if tr.volumes != nil {
		tr.volumes.observe(ev)
	}
}

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
	r.res.Denials = append(r.res.Denials, tr.caps.Denials()...)
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

// agentOutput creates the agent's stdout and stderr logs, each capped at
// Options.MaxOutputBytes (the agent never sees the cap).
func (r *runner) agentOutput() (stdout, stderr *capped.Writer, err error) {
	open := func(file, name string) (*capped.Writer, error) {
		return r.cappedLog(file, name, r.o.MaxOutputBytes, os.O_TRUNC)
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
