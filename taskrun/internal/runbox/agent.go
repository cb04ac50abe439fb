package runbox

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
	"github.com/authbench/authbench/tracer/trace"
)

// AgentRunConfig is the agent's container: the task's, its root holding
// the agent's capabilities too (sandbox-init narrows its set to them).
func (b *Box) AgentRunConfig() env.RunConfig {
	cfg := env.TaskRunConfig(b.Task, b.Image)
	cfg.AddCapabilities = b.Caps
	b.AgentNet.Apply(b, &cfg)
	return cfg
}

// AgentLaunch is what sandbox-init does inside the container: confine
// itself to the plan (when there is one) with the container seccomp
// profile (sandbox.ContainerProfile: set-ID modes allowed, the container
// being nosuid) or Seccomp, keep the agent's capabilities (Caps, with or
// without a plan), drop to the agent's uid and exec argv; extra options
// are applied last (sandbox.ReportExit for a tree kept after its command).
func (b *Box) AgentLaunch(argv []string, extra ...sandbox.Option) (sandbox.Launch, error) {
	return b.AgentLaunchWith(argv, b.Plan, extra...)
}

// AgentLaunchWith is AgentLaunch confined to plan instead of Plan (a model
// agent's tool process that applies run-time grants), with extra
// options applied last (with a plan: a filter of its own, for one).
func (b *Box) AgentLaunchWith(argv []string, plan *policy.Plan, extra ...sandbox.Option) (sandbox.Launch, error) {
	cfg := env.TaskRunConfig(b.Task, b.Image)
	dir := cfg.Cwd
	if dir == "" {
		dir = "/"
	}
	opts := []sandbox.Option{sandbox.Identity(b.Ident.UID, b.Ident.GID, b.Ident.Groups...), sandbox.CloseInheritedFDs(),
		sandbox.Capabilities(b.Caps...)}
	if plan != nil {
		filter, err := sandbox.ContainerFilter()
		if b.Seccomp != nil {
			filter, err = b.Seccomp, nil // a generation's (GenerationFilter)
		}
		if err != nil {
			return sandbox.Launch{}, err
		}
		opts = append(opts, sandbox.Confined(plan, filter))
	}
	c, err := sandbox.NewConfinement(append(opts, extra...)...)
	if err != nil {
		return sandbox.Launch{}, err
	}
	return c.Confine(sandbox.Command{Path: argv[0], Args: argv,
		Env: env.MergeEnv(env.MergeEnv(agentEnv(cfg.Env, b.Ident), b.AgentNet.Env), b.AgentEnv), Dir: dir}), nil
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

// RefusedAgent reports whether err is the policy refusing the agent's
// program (sandbox-init's exec, or its PATH lookup, failed with EACCES
// under a plan that forbids it): then the agent failed (exit
// sandbox.ExitNotExecutable, as a shell says) and the run did not.
// denial is the refusal as the run's denial when the plan does not
// permit the program (the trace starts with the agent's first exec, so
// it cannot hold it); nil otherwise.
func (b *Box) RefusedAgent(err error) (refused bool, denial *audit.Denial) {
	var ie *sandbox.InitError
	if b.Plan == nil || !errors.As(err, &ie) || ie.Errno != syscall.EACCES ||
		ie.Stage != sandbox.StageExec && ie.Stage != sandbox.StageLookup {
		return false, nil
	}
	b.Log.Info("the policy refused the agent's program", zap.String("task", b.Task.Name), zap.Error(err))
	op := policy.Operation{Op: string(trace.OpExec), Path: ie.Path}
	root, rerr := policy.NewRoot(b.Rootfs.Path)
	if rerr == nil && !b.Plan.Permits(op, root.RealpathNow) {
		denial = &audit.Denial{Op: op.Op, Axis: trace.AxisExecute, Path: ie.Path, Errno: "EACCES", Count: 1}
	}
	return true, denial
}

// AgentTrace records an agent container's events, judged against the
// plan, and collects its capability denials (EPERM of a chown, chmod,
// setxattr, mknod or set-ID call), which the plan does not decide.
type AgentTrace struct {
	Rec  *audit.Recording
	caps audit.CapabilityDenials
	also func(*trace.Event)
}

// TraceSummary is what an ended AgentTrace recorded.
type TraceSummary struct {
	Events, Lost uint64
	// Denials are the plan's, then the capability denials.
	Denials []audit.Denial
}

// StartAgentTrace waits until the container's init (pid) is sandbox-init
// at its gate and follows it from its exec of the agent on into the
// run's file named file; also (nil: nothing) sees each event too.
func (b *Box) StartAgentTrace(ctx context.Context, pid int, file string, also func(*trace.Event)) (*AgentTrace, error) {
	root, err := policy.NewRoot(b.Rootfs.Path)
	if err != nil {
		return nil, err
	}
	tr := &AgentTrace{also: also}
	if tr.Rec, err = b.TraceContainer(ctx, pid, file, b.Plan, root, tr.observe); err != nil {
		return nil, err
	}
	return tr, nil
}

func (tr *AgentTrace) observe(ev *trace.Event) {
	tr.caps.Observe(ev)
	if tr.also != nil {
		tr.also(ev)
	}
}

// FinishAgentTrace closes the recording once the container has ended.
func (b *Box) FinishAgentTrace(tr *AgentTrace) TraceSummary {
	sum, err := tr.Rec.Close()
	if err != nil {
		b.Log.Error("agent trace incomplete", zap.Error(err))
	}
	out := TraceSummary{Events: sum.Events, Lost: sum.Lost + tr.Rec.Dropped()}
	out.Denials = append(append(out.Denials, tr.Rec.Auditor.Denials()...), tr.caps.Denials()...)
	return out
}

// TraceContainer follows a gated container's init (pid) from its exec of
// the command on, once runc has made it sandbox-init, into the run's file,
// judging the events against plan (nil: none) in root; also sees each.
func (b *Box) TraceContainer(ctx context.Context, pid int, file string, plan *policy.Plan, root *policy.Root, also func(*trace.Event)) (*audit.Recording, error) {
	if err := WaitForExe(ctx, pid, BinaryInContainer); err != nil {
		return nil, err
	}
	sess, err := b.Tracer.TrackWith(pid, tracer.TrackOptions{FromExec: true})
	if err != nil {
		return nil, fmt.Errorf("trace %s: %w", file, err)
	}
	return audit.RecordWith(sess, filepath.Join(b.Dir, file), audit.NewInRoot(plan, root), also,
		audit.RecordOptions{MaxBytes: b.MaxOutputBytes})
}

// WaitForExe waits until process pid runs a program whose path (as the
// process sees it) ends with name: runc's init has exec'd it.
func WaitForExe(ctx context.Context, pid int, name string) error {
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

// AgentOutput creates the agent's stdout and stderr logs, each capped at
// MaxOutputBytes (the agent never sees the cap).
func (b *Box) AgentOutput() (stdout, stderr *capped.Writer, err error) {
	open := func(file, name string) (*capped.Writer, error) {
		return b.CappedLog(file, name, b.MaxOutputBytes, os.O_TRUNC)
	}
	if stdout, err = open(runapi.FileAgentStdout, "agent stdout"); err != nil {
		return nil, nil, err
	}
	if stderr, err = open(runapi.FileAgentStderr, "agent stderr"); err != nil {
		stdout.Close()
		return nil, nil, err
	}
	return stdout, stderr, nil
}

// CloseAgentOutput closes the agent's logs; the error is the first that
// failed to close (each is logged). Their Dropped counts stay readable.
func (b *Box) CloseAgentOutput(stdout, stderr *capped.Writer) error {
	var first error
	for _, w := range []*capped.Writer{stdout, stderr} {
		if err := w.Close(); err != nil {
			b.Log.Error("agent output", zap.Error(err))
			if first == nil {
				first = err
			}
		}
	}
	return first
}
