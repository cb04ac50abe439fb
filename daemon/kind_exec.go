package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/authbench/authbench/capability"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/sandbox"
)

// execKind is a command run (runapi.ExecRequest): argv under a policy,
// confined by sandbox-init with Landlock, seccomp and an identity,
// traced when asked.
type execKind struct{}

// validate checks the command, its environment and directory, the
// policy and baseline, the identity and capabilities and the seccomp
// profile.
func (execKind) validate(rec *runapi.RunRequest, c checkEnv) (kindState, error) {
	p := &execPrepared{recorded: recorded{rec}}
	return p, p.check(c)
}

// check checks the command and resolves its defaults into p.
func (p *execPrepared) check(c checkEnv) error {
	req := *p.req.Exec
	p.req.Exec = &req
	if len(req.Command) == 0 || req.Command[0] == "" {
		return badField("exec.command", "must be a non-empty array whose first element names a program")
	}
	if len(req.Command) > maxArgs {
		return badField("exec.command", "has %d arguments (at most %d)", len(req.Command), maxArgs)
	}
	if err := checkStrings("exec.command", req.Command); err != nil {
		return err
	}
	if len(req.Env) > maxEnv {
		return badField("exec.env", "has %d entries (at most %d)", len(req.Env), maxEnv)
	}
	if err := checkStrings("exec.env", req.Env); err != nil {
		return err
	}
	for i, kv := range req.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return badField(indexField("exec.env", i), "must be KEY=VALUE, got %q", kv)
		}
	}
	if req.Dir != "" && !filepath.IsAbs(req.Dir) {
		return badField("exec.dir", "must be an absolute path, got %q", req.Dir)
	}
	if err := p.parsePolicy(); err != nil {
		return err
	}
	if err := p.resolveIdentity(c.peer); err != nil {
		return err
	}
	if err := p.checkCapabilities(c.peer); err != nil {
		return err
	}
	return p.compileSeccomp()
}

// execute runs the command's tree (execute.go).
func (execKind) execute(ctx context.Context, m *Manager, ar *activeRun) outcome {
	return m.execute(ctx, ar)
}

// defaultTimeout is the daemon's default for commands.
func (execKind) defaultTimeout(commandDefault time.Duration) time.Duration { return commandDefault }

// signalable: a command's root takes forwarded signals.
func (execKind) signalable() bool { return true }

// traced: a command asked to be.
func (execKind) traced(req *runapi.RunRequest) bool { return req.Exec != nil && req.Exec.Trace }

// usesRootfs: a command runs in the host's filesystem.
func (execKind) usesRootfs() bool { return false }

// artifacts: the event log and the command's output.
func (execKind) artifacts() []runapi.Artifact { return runapi.CommandArtifacts }

// compileSeccomp compiles the request's profile (the default one when it
// names none) for the capabilities the tree will hold.
func (p *execPrepared) compileSeccomp() error {
	req := p.req.Exec
	switch {
	case req.NoSeccomp && !isNull(req.Seccomp):
		return badField("exec.no_seccomp", "contradicts the seccomp profile given")
	case req.NoSeccomp:
		return nil
	case isNull(req.Seccomp):
		f, err := sandbox.DefaultFilter()
		if err != nil {
			return fmt.Errorf("default seccomp filter: %w", err)
		}
		p.seccomp = f
		return nil
	}
	prof, err := sandbox.ParseProfile(req.Seccomp, "exec.seccomp")
	if err != nil {
		return badField("exec.seccomp", "%v", err)
	}
	f, err := sandbox.CompileProfile(prof, sandbox.CompileOptions{Capabilities: capability.Held(req.Capabilities)})
	if err != nil {
		return badField("exec.seccomp", "%v", err)
	}
	p.seccomp = f
	return nil
}

// parsePolicy parses a command's policy, baseline and plan options.
func (p *execPrepared) parsePolicy() error {
	req := p.req.Exec
	if isNull(req.Policy) {
		switch {
		case !isNull(req.Baseline):
			return badField("exec.baseline", "a baseline needs a policy")
		case req.Semantics != "":
			return badField("exec.semantics", "semantics need a policy")
		case req.RefuseSymlinks:
			return badField("exec.refuse_symlinks", "refusing symlinks needs a policy")
		}
		return nil
	}
	pol, err := policy.ParsePolicy(req.Policy, "exec.policy")
	if err != nil {
		return badField("exec.policy", "%v", err)
	}
	p.policy = pol
	sem, err := policy.ParseSemantics(req.Semantics)
	if err != nil {
		return badField("exec.semantics", "%v", err)
	}
	req.Semantics = string(sem) // recorded as applied
	p.planOptions = policy.PlanOptions{Semantics: sem, RefuseSymlinks: req.RefuseSymlinks}
	p.baseline = policy.DefaultBaseline()
	if isNull(req.Baseline) {
		return nil
	}
	var name string
	if json.Unmarshal(req.Baseline, &name) == nil {
		switch name {
		case policy.BaselineDefault:
		case policy.BaselineNone:
			p.baseline = policy.NoBaseline()
		default:
			return badField("exec.baseline", "must be \"default\", \"none\" or a spec object, got %q", name)
		}
		return nil
	}
	spec, err := policy.ParseSpec(req.Baseline, "exec.baseline")
	if err != nil {
		return badField("exec.baseline", "%v", err)
	}
	p.baseline = policy.SpecBaseline(spec)
	return nil
}

// resolveIdentity decides the uid/gid of the tree: a caller that is not
// root runs as itself; root may choose, but uid 0 needs allow_root.
func (p *execPrepared) resolveIdentity(peer Peer) error {
	req := p.req.Exec
	p.uid, p.gid = peer.UID, peer.GID
	if req.UID != nil {
		p.uid = *req.UID
	}
	if req.GID != nil {
		p.gid = *req.GID
	}
	if peer.UID != 0 && (p.uid != peer.UID || p.gid != peer.GID) {
		return forbidden(RuleOwnIdentity, "a caller that is not root can only run commands as its own uid and gid")
	}
	if p.uid == 0 && !req.AllowRoot {
		return badField("exec.allow_root", "running the tree as root (uid 0) must be asked for explicitly")
	}
	if p.uid == 0 && peer.UID != 0 {
		return forbidden(RuleOwnIdentity, "only root may run a tree as root")
	}
	return nil
}
