package daemon

import (
	"context"
	"path/filepath"
	"slices"
	"time"

	"github.com/authbench/authbench/agent/agentname"
	"github.com/authbench/authbench/capability"
	"github.com/authbench/authbench/daemon/work"
	"github.com/authbench/authbench/netproxy/netpolicy"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
)

// taskKind is a task run (runapi.TaskRequest, package taskrun behind
// Config.Work): the task's agent in a fresh rootfs of its image, under
// the policy source's plan, traced, then its verifiers.
type taskKind struct{}

// validate checks a task run: a caller that is not root may only use
// a trusted task dir (checkTrustedTaskDir), the task loads, the policy
// source and the agent make sense; the command and identity are the
// task's.
func (taskKind) validate(rec *runapi.RunRequest, c checkEnv) (kindState, error) {
	p := &taskPrepared{recorded: recorded{rec}}
	return p, p.check(c)
}

// check checks the task run and resolves its defaults into p.
func (p *taskPrepared) check(c checkEnv) error {
	if err := c.needWork("task"); err != nil {
		return err
	}
	tr := *p.req.Task
	p.req.Task = &tr
	if !filepath.IsAbs(tr.Dir) {
		return badField("task.dir", "must be an absolute path, got %q", tr.Dir)
	}
	if c.peer.UID != 0 {
		if ferr := checkTrustedTaskDir(tr.Dir, c.trusted); ferr != nil {
			return ferr
		}
	}
	t, err := c.work.LoadTask(tr.Dir)
	if err != nil {
		return badField("task.dir", "%v", err)
	}
	p.task = t // the agent's uid and gid are the image's user, known once it is built (taskKind.execute)
	if err := p.takeTaskPolicy(); err != nil {
		return err
	}
	if err := c.work.CheckAgent(t, tr.Agent); err != nil {
		return badField("task.agent", "%v", err)
	}
	if err := p.takeModel(); err != nil {
		return err
	}
	sem, err := policy.ParseSemanticsOr(tr.Semantics, policy.DefaultTaskSemantics)
	if err != nil {
		return badField("task.semantics", "%v", err)
	}
	p.req.Task.Semantics = string(sem) // recorded as applied
	if err := p.takeTaskCaps(c.peer); err != nil {
		return err
	}
	if err := p.checkAllowHosts(); err != nil {
		return err
	}
	return checkRequests(p.req.Task)
}

// takeTaskPolicy checks the task run's policy against its policy
// source: only source "policy" takes one, parsed for the task's spec.
func (p *taskPrepared) takeTaskPolicy() error {
	tr := p.req.Task
	switch tr.PolicySource {
	case runapi.SourceUnconstrained, runapi.SourceSpec:
		if !isNull(tr.Policy) {
			return badField("task.policy", "only policy source %q takes a policy", runapi.SourcePolicy)
		}
	case runapi.SourcePolicy:
		if isNull(tr.Policy) {
			return badField("task.policy", "policy source %q needs a policy", runapi.SourcePolicy)
		}
		pol, err := policy.ParsePolicyFor(tr.Policy, "task.policy", p.task.PermissionSpec())
		if err != nil {
			return badField("task.policy", "%v", err)
		}
		p.policy = pol
	default:
		return badField("task.policy_source", "must be %s, got %q", runapi.SourceNames(true), tr.PolicySource)
	}
	return nil
}

// execute carries out the task run (Config.Work) in the run's directory
// and records its result. The run succeeds when the task run was carried
// out, whatever the verdicts; its exit code is the agent's.
func (taskKind) execute(ctx context.Context, m *Manager, ar *activeRun) outcome {
	prep := stateOf[*taskPrepared](ar)
	tr := prep.req.Task
	run, stop := m.startTaskWork(ar, prep.task, tr.BaseMap)
	defer stop()
	res, err := m.cfg.Work.RunTask(ctx, work.TaskJob{Env: run,
		Source: tr.PolicySource, Policy: prep.policy, Semantics: policy.Semantics(tr.Semantics), Agent: tr.Agent, Model: prep.model,
		Capabilities: prep.caps, AllowHosts: tr.AgentAllowHosts,
		Requests: tr.Requests, RequestLimits: RequestLimits(tr)})
	if res != nil {
		m.amend(ar, func(r *runapi.Run) { r.TaskResult = res }) // saved with the end; its counts and denials are read there
	}
	if err != nil {
		return outcome{startErr: err, killed: ctx.Err() != nil}
	}
	// Ended early (cancel, deadline, daemon stopping) at any step, the
	// agent's or a verifier's: the run ends as its cause says.
	return outcome{exitCode: res.ExitCode, killed: ctx.Err() != nil}
}

// defaultTimeout: the task's own agent and verifier timeouts apply.
func (taskKind) defaultTimeout(time.Duration) time.Duration { return taskTimeout }

// signalable: the agent is a container's init, not ours to signal.
func (taskKind) signalable() bool { return false }

// traced: a task run always is.
func (taskKind) traced(*runapi.RunRequest) bool { return true }

// usesRootfs: the agent runs in a rootfs of the task's image.
func (taskKind) usesRootfs() bool { return true }

// artifacts: the result, the agent's and verifiers' logs and traces.
func (taskKind) artifacts() []runapi.Artifact { return runapi.TaskArtifacts }

// checkAllowHosts checks a task run's agent_allow_hosts (each an
// allow-list entry, docs/tasks.md "Network policy"), naming a bad one.
func (p *taskPrepared) checkAllowHosts() error {
	if _, err := netpolicy.ParseAllowList("task.agent_allow_hosts", p.req.Task.AgentAllowHosts); err != nil {
		return badField("task.agent_allow_hosts", "%v", err)
	}
	return nil
}

// takeTaskCaps checks a task run's agent capability set: known names,
// and from a caller that is not root none beyond Docker's default set.
func (p *taskPrepared) takeTaskCaps(peer Peer) error {
	tr := p.req.Task
	if tr.Caps == "" {
		return nil
	}
	caps, err := capability.ParseSet(tr.Caps)
	if err != nil {
		return badField("task.caps", "%v", err)
	}
	if peer.UID != 0 {
		for _, c := range caps {
			if !slices.Contains(capability.Docker, c) {
				return badField("task.caps", "only a root caller may grant %s (beyond Docker's default set)", c)
			}
		}
	}
	p.caps = caps
	return nil
}

// takeModel checks the model of an agent that calls one (openai:MODEL,
// installed:NAME[:MODEL]; agentname.Name.TakesModel) and moves it, with
// its API key, out of the request: what is recorded keeps it redacted.
func (p *taskPrepared) takeModel() error {
	tr := *p.req.Task
	n, err := agentname.Parse(tr.Agent)
	name := n.Model
	switch {
	case err != nil && n.Kind == agentname.Installed:
		return badField("task.agent", "%v", err)
	case err != nil || !n.TakesModel():
		if tr.Model != nil {
			return badField("task.model", "only an openai:MODEL or installed:NAME agent takes a model")
		}
		return nil
	case tr.Model == nil:
		return badField("task.model", "agent %s needs a model (base_url, api_key, options)", tr.Agent)
	}
	cfg := *tr.Model
	if name != "" && cfg.Model != "" && cfg.Model != name {
		return badField("task.model.model", "is %q but the agent names %q", cfg.Model, name)
	}
	if name != "" {
		cfg.Model = name
	}
	p.modelAsked = cfg
	// The client resolved the endpoint and key; the daemon's own
	// environment is not the caller's and is not consulted.
	if cfg, err = cfg.Resolve(func(string) string { return "" }); err != nil {
		return badField("task.model", "%v", err)
	}
	p.model = &cfg
	redacted := cfg.Redacted()
	tr.Model = &redacted
	p.req.Task = &tr
	p.modelAt, p.modelField = &p.req.Task.Model, "task.model"
	return nil
}
