package taskrun

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/sandbox"
	"github.com/authbench/authbench/taskrun/internal/runbox"
	"github.com/authbench/authbench/tracer/trace"
)

// runAgent runs the agent as its container's init through sandbox-init
// (Box.RunGated), confined by Box.AgentLaunch and traced from its exec.
func (r *runner) runAgent(ctx context.Context, argv []string) error {
	t := r.Options.Task
	launch, err := r.AgentLaunch(argv, sandbox.ReportExit())
	if err != nil {
		return err
	}
	stdout, stderr, err := r.AgentOutput()
	if err != nil {
		return err
	}
	closeOutput := func() { r.noteAgentOutput(stdout.Dropped(), stderr.Dropped(), r.CloseAgentOutput(stdout, stderr)) }
	defer func() {
		if r.kept == nil {
			closeOutput()
		} else {
			r.keptOutput = closeOutput // what the agent left still writes there
		}
	}()
	var rec *agentTrace
	track := func(ctx context.Context, pid int) error {
		var err error
		rec, err = r.startAgentTraceTo(ctx, pid, runapi.FileEvents, nil)
		return err
	}
	if r.Tracer == nil {
		track = nil
	}
	r.AgentStart = time.Now()
	r.left = newLeftovers()
	gated := runbox.Gated{
		Name: "agent", Config: r.AgentRunConfig(), Launch: launch,
		Stdio: env.Stdio{Stdout: stdout, Stderr: stderr}, Timeout: r.AgentTimeout(),
		Track: track,
	}
	if err := r.startBroker(ctx, &gated); err != nil {
		return err
	}
	g := r.RunGated(ctx, gated)
	if g.Kept != nil {
		r.left.since = g.Kept.Ended.UnixNano()
	}
	r.agentDone.Store(true)
	if g.Kept != nil {
		// What the agent left running (a server it started) runs on,
		// confined and traced, until the verifiers end (endKept).
		r.kept, r.keptTrace = g.Kept, rec
		r.Log.Info("the agent left processes running into the verifier phase", zap.String("task", t.Name))
	} else {
		r.finishAgentTrace(rec)
	}
	r.res.ExitCode, r.res.TimedOut, r.res.DurationS = g.ExitCode, g.TimedOut, g.Duration.Seconds()
	r.res.SetupMS = float64(g.Setup) / float64(time.Millisecond)
	r.res.StillRunning = g.StillRunning
	if g.StartTimedOut {
		r.Log.Warn("the agent's timeout expired before it started", zap.String("task", t.Name), zap.Error(g.StartErr))
		g.StartErr = nil
	}
	if g.StartErr != nil && r.policyRefusedAgent(g.StartErr) {
		g.StartErr = nil
	}
	if g.StartErr != nil {
		return runapi.WithKind(startKind(g.StartErr), fmt.Errorf("agent could not start: %w", g.StartErr))
	}
	r.agentRan = true
	if g.WaitErr != nil {
		return fmt.Errorf("agent: %w", g.WaitErr)
	}
	r.Log.Info("agent ended", zap.String("task", t.Name), zap.Int("exit", g.ExitCode), zap.Bool("timed_out", g.TimedOut))
	return nil
}

// policyRefusedAgent reports whether err is the policy refusing the
// agent's program (Box.RefusedAgent): then the agent failed (126, as a
// shell says) and the run did not; the refusal is the run's denial.
func (r *runner) policyRefusedAgent(err error) bool {
	refused, denial := r.RefusedAgent(err)
	if !refused {
		return false
	}
	r.res.ExitCode = sandbox.ExitNotExecutable
	if denial != nil {
		r.res.Denials = append(r.res.Denials, *denial)
	}
	return true
}

// agentTrace is the agent's recording (runbox.AgentTrace) with what a
// task run notes besides: its sensitive accesses and its writes into
// its volumes.
type agentTrace struct {
	*runbox.AgentTrace
	sensitive *sensitiveMatcher
	// volumes, when set, collects the agent's writes into its volumes.
	volumes *volumeWrites
}

// startAgentTraceTo waits until the container's init (pid) is
// sandbox-init at its gate and follows it from its exec of the agent on
// into the run's file named file; also (nil: nothing) sees each event.
func (r *runner) startAgentTraceTo(ctx context.Context, pid int, file string, also func(*trace.Event)) (*agentTrace, error) {
	root, err := policy.NewRoot(r.Rootfs.Path)
	if err != nil {
		return nil, err
	}
	tr := &agentTrace{sensitive: newSensitiveMatcher(r.Options.Task.Spec, root), volumes: r.volumeWrites}
	left := r.left
	observe := func(ev *trace.Event) {
		if left != nil && r.agentDone.Load() {
			left.observe(ev)
		}
		tr.sensitive.observe(ev)
		if also != nil {
			also(ev)
		}
		if tr.volumes != nil {
			tr.volumes.observe(ev)
		}
	}
	if tr.AgentTrace, err = r.StartAgentTrace(ctx, pid, file, observe); err != nil {
		return nil, err
	}
	r.res.Traced = true
	return tr, nil
}

// finishAgentTrace closes the recording once the container has ended.
func (r *runner) finishAgentTrace(tr *agentTrace) {
	if tr == nil {
		return
	}
	sum := r.FinishAgentTrace(tr.AgentTrace)
	r.res.Events, r.res.LostEvents = sum.Events, sum.Lost
	r.res.Denials = append(r.res.Denials, sum.Denials...)
	r.res.TracedSensitive = append(r.res.TracedSensitive, tr.sensitive.found...)
}

// noteAgentOutput records what the agent's logs dropped, and a failure
// to close them as the run's error unless it has one.
func (r *runner) noteAgentOutput(stdoutDropped, stderrDropped int64, closeErr error) {
	if closeErr != nil && r.res.Error == "" {
		r.res.Error = closeErr.Error()
	}
	r.res.AgentStdoutDroppedBytes, r.res.AgentStderrDroppedBytes = stdoutDropped, stderrDropped
}

// startKind is the kind of a container's start failure: sandbox-init
// could not confine it (a stage of sandbox.InitError), or anything else
// kept the agent from starting.
func startKind(err error) runapi.ErrorKind {
	var ie *sandbox.InitError
	if errors.As(err, &ie) {
		return runapi.ErrorConfine
	}
	return runapi.ErrorAgent
}

// endKept kills what the agent left running once the verifiers ended (or
// the run ends first) and closes the agent's trace with it: its denials
// and sensitive accesses in the verifier phase are the agent's too.
func (r *runner) endKept() {
	if r.kept == nil {
		return
	}
	left := r.kept.Kill()
	r.kept = nil
	if r.keptOutput != nil {
		r.keptOutput()
		r.keptOutput = nil
	}
	r.finishAgentTrace(r.keptTrace)
	r.keptTrace = nil
	r.Log.Info("killed what the agent left running", zap.String("task", r.Options.Task.Name), zap.Int("processes", len(left)))
}
