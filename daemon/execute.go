package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"go.uber.org/zap"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/internal/lifecycle"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/sandbox"
)

// outcome is how the tree of a run ended.
type outcome struct {
	exitCode int
	startErr error // the command never ran
	killed   bool  // the tree was killed (timeout, cancel, abort)
}

// execute runs the tree of ar until it exits or ctx ends, then kills
// whatever is left of it (lifecycle.Run), and records its shell status.
func (m *Manager) execute(ctx context.Context, ar *activeRun) outcome {
	res := m.executeTree(ctx, ar)
	status := res.exitCode
	if res.startErr != nil {
		status = startStatus(res.startErr)
	}
	m.amend(ar, func(r *runapi.Run) { r.ExitStatus = &status }) // saved with the end
	return res
}

func (m *Manager) executeTree(ctx context.Context, ar *activeRun) outcome {
	id := ar.rec.ID
	prep := stateOf[*execPrepared](ar)
	root, err := policy.NewRoot("/")
	if err != nil {
		return outcome{startErr: err}
	}
	plan, err := m.compilePlan(ar, root)
	if err != nil {
		return outcome{startErr: err}
	}
	enf := sandbox.KernelEnforcement()
	m.amend(ar, func(r *runapi.Run) { // saved with the start (or the end)
		r.Plan, r.LandlockABI = plan, enf.KernelABI
		if plan != nil {
			r.UnenforcedRights = enf.Gaps()
		}
	})
	stdio, err := m.runStdio(ar)
	if err != nil {
		return outcome{startErr: err}
	}
	defer stdio.close()

	spec, err := m.sandboxSpec(prep, plan)
	if err != nil {
		return outcome{startErr: err}
	}
	opts := m.launchOptions()
	child, err := sandbox.StartWith(m.cfg.Self, spec, opts, stdio.in, stdio.out, stdio.err)
	stdio.started()
	if err != nil {
		return outcome{startErr: err}
	}
	var rec *audit.Recording
	// The running state is recorded while sandbox-init confines the
	// tree, not before it may start: the save (a file written and
	// renamed) then takes the other core rather than the gate's way.
	// It is done before the run's end is (a crash of the daemon before
	// it leaves the queued record, which RecoverStale ends as well).
	var running chan struct{}
	steps := lifecycle.Steps{KillGrace: killGrace, Track: func(pid int) error {
		if prep.req.Exec.Trace {
			var err error
			if rec, err = m.startTrace(id, pid, plan, root); err != nil {
				return err
			}
		}
		running = make(chan struct{})
		go func() {
			defer close(running)
			m.setRunning(ar, pid)
		}()
		return nil
	}}
	steps.Signals = ar.signals
	if ar.attach != nil {
		steps.Signals = ar.attach.Signals
	}
	stopTicker := m.notifyWhileRunning(ar)
	defer stopTicker()
	res := lifecycle.Run(ctx, lifecycle.NewChildTree(child, opts), steps)
	if running != nil {
		<-running
	}
	m.finishTrace(ar, rec)
	if len(res.StillRunning) > 0 {
		m.amend(ar, func(r *runapi.Run) { r.StillRunning = res.StillRunning }) // saved with the end
	}
	if res.Killed && res.StartErr != nil {
		m.log.Error("killed tree not reaped in time", zap.String("run", id), zap.Error(res.StartErr))
	}
	return outcome{exitCode: res.Status, startErr: res.StartErr, killed: res.Killed}
}

// launchOptions: a daemon that may create namespaces (root, with
// CAP_SYS_ADMIN) starts every tree as the init of its own PID namespace,
// so that killing it kills the whole tree, and, with HidePaths, in its
// own mount namespace. Without (an embedded run of a user, or of a root
// that is itself confined) there are none and only the root process is
// killed (the rest of the tree, still in the caller's process group, gets
// the terminal's signals).
func (m *Manager) launchOptions() sandbox.LaunchOptions {
	ns := sandbox.CanCreateNamespaces()
	return sandbox.LaunchOptions{OwnPIDNamespace: ns, OwnMountNamespace: ns && len(m.cfg.HidePaths) > 0}
}

// startStatus is the shell status of a run whose command never ran: 127
// not found, 126 not executable, 125 anything else (it could not be
// confined, traced or started).
func startStatus(err error) int {
	var ie *sandbox.InitError
	if errors.As(err, &ie) {
		return ie.ShellStatus()
	}
	return sandbox.ExitNotConfined
}

// runStdio are the standard streams of a run's tree.
type runStdio struct {
	in       io.Reader
	out, err io.Writer
	// started is called once the tree was started (or failed to start);
	// close once it has ended.
	started, close func()
}

// runStdio attaches the tree to the submitter's streams, or to the run's
// stdout and stderr logs.
func (m *Manager) runStdio(ar *activeRun) (*runStdio, error) {
	if a := ar.attach; a != nil {
		return &runStdio{in: a.Stdin, out: a.Stdout, err: a.Stderr, started: func() {}, close: func() {}}, nil
	}
	output, err := m.openOutput(ar) // capped (Config.MaxOutputBytes)
	if err != nil {
		return nil, err
	}
	stdout, stderr := output.files()
	return &runStdio{out: stdout, err: stderr, started: output.started, close: func() { m.closeOutput(ar, output) }}, nil
}

// compilePlan turns the run's policy into a Landlock plan against root
// (the host's); nil when the run is unconstrained. The plan an embedding
// command attached (Attachment.Plan, CompileRequestPlan of this very
// request) is taken as it is: it was compiled the same way a moment ago.
func (m *Manager) compilePlan(ar *activeRun, root *policy.Root) (*policy.Plan, error) {
	prep := stateOf[*execPrepared](ar)
	if prep.policy == nil {
		return nil, nil
	}
	var plan *policy.Plan
	if ar.attach != nil {
		plan = ar.attach.Plan
	}
	if plan == nil {
		var err error
		if plan, err = compileRequestPlan(prep, root); err != nil {
			return nil, err
		}
	}
	for _, w := range plan.LoudWarnings() {
		m.log.Warn("policy warning", zap.String("pattern", w.Pattern), zap.String("warning", w.Message))
	}
	return plan, nil
}

// CompileRequestPlan compiles the plan of an exec request exactly as the
// Manager does when the run starts (its policy, baseline and options,
// against the host's root); nil when the request has no policy. A bad
// policy, baseline or option is a *RequestError. A command that embeds
// the Manager checks its request with it and attaches the plan to the
// submission (Attachment.Plan), so that the plan is compiled once.
func CompileRequestPlan(req *runapi.RunRequest) (*policy.Plan, error) {
	if req.Exec == nil {
		return nil, badField("exec", "only a command's plan is compiled before its run")
	}
	ex := *req.Exec
	p := &execPrepared{recorded: recorded{&runapi.RunRequest{Exec: &ex}}}
	if err := p.parsePolicy(); err != nil {
		return nil, err
	}
	if p.policy == nil {
		return nil, nil
	}
	root, err := policy.NewRoot("/")
	if err != nil {
		return nil, err
	}
	return compileRequestPlan(p, root)
}

// compileRequestPlan is the compilation of CompileRequestPlan and of a
// run without an attached plan.
func compileRequestPlan(p *execPrepared, root *policy.Root) (*policy.Plan, error) {
	plan, err := policy.CompilePlanWith(p.policy, p.baseline, root, p.planOptions)
	if err != nil {
		return nil, fmt.Errorf("compile policy: %w", err)
	}
	return plan, nil
}

// notifyWhileRunning wakes log followers regularly while the tree runs
// (its output goes straight to files); the returned func stops it.
func (m *Manager) notifyWhileRunning(ar *activeRun) func() {
	stop := make(chan struct{})
	go func() {
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				ar.notify()
			case <-stop:
				return
			}
		}
	}()
	return func() { close(stop) }
}

// sandboxSpec is what sandbox-init needs to become the run's command:
// confined as `authbench exec` confines, as the run's uid and gid.
// sandbox-init finds Command[0] itself, as the run's user in Dir.
func (m *Manager) sandboxSpec(prep *execPrepared, plan *policy.Plan) (sandbox.Launch, error) {
	req := prep.req.Exec
	dir := req.Dir
	if dir == "" {
		dir = "/"
	}
	opts := []sandbox.Option{sandbox.AllowUnenforced(req.AllowUnenforced), sandbox.Identity(int(prep.uid), int(prep.gid)),
		sandbox.WaitTree(req.WaitTree)}
	if m.launchOptions().OwnMountNamespace {
		opts = append(opts, sandbox.HidePaths(m.cfg.HidePaths...))
	}
	if plan == nil && prep.seccomp == nil {
		// Unconstrained: only the identity changes.
		opts = append(opts, sandbox.CloseInheritedFDs())
		if req.Trace {
			// Opens submitted through io_uring are not traced: a traced
			// run gets no io_uring (libuv and liburing fall back).
			f, err := noIOUringFilter()
			if err != nil {
				return sandbox.Launch{}, err
			}
			opts = append(opts, sandbox.Seccomp(f))
		}
	} else {
		opts = append(opts, sandbox.Capabilities(req.Capabilities...), // validated: uid 0 only
			sandbox.RefuseUnixConnect(!req.AllowUnixConnect), sandbox.Confined(plan, prep.seccomp))
	}
	c, err := sandbox.NewConfinement(opts...)
	if err != nil {
		return sandbox.Launch{}, err
	}
	return c.Confine(sandbox.Command{Path: req.Command[0], Args: req.Command, Env: req.Env, Dir: dir}), nil
}
