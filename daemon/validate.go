package daemon

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/authbench/authbench/agent/agentname"
	"github.com/authbench/authbench/agent/modelconfig"
	"github.com/authbench/authbench/capability"
	"github.com/authbench/authbench/daemon/work"
	"github.com/authbench/authbench/netproxy/netpolicy"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/sandbox"
)

// Request limits.
const (
	maxArgs          = 4096
	maxEnv           = 4096
	maxStringBytes   = 128 << 10
	maxTimeoutSecond = 7 * 24 * 3600
	nobodyID         = 65534
)

// decodeRequest parses a POST /v1/runs body strictly: unknown fields
// and trailing data are errors naming the field.
func decodeRequest(body []byte) (*runapi.RunRequest, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var req runapi.RunRequest
	if err := dec.Decode(&req); err != nil {
		return nil, jsonFieldError(err)
	}
	if dec.More() {
		return nil, badField("", "extra data after the request object")
	}
	return &req, nil
}

// jsonFieldError turns a decoding error into a RequestError naming the
// field where the JSON package knows it.
func jsonFieldError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return badField(te.Field, "must be %s, not %s", te.Type.String(), te.Value)
	}
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return badField(strings.Trim(rest, `"`), "unknown field")
	}
	return badField("", "malformed JSON: %s", msg)
}

// prepared is a validated request with its parsed parts.
type prepared struct {
	req      runapi.RunRequest
	policy   *policy.Policy
	baseline policy.Baseline
	uid, gid uint32
	seccomp  *sandbox.Filter // nil: no filter
	// planOptions choose how the policy is compiled (semantics, symlinks).
	planOptions policy.PlanOptions
	task        work.Task // set for task runs
	generate    work.Task // set for generations
	build       work.Task // set for task image builds (nil for a base's)
	// model is an openai:MODEL task agent's model, with its API key
	// (req.Task.Model has none).
	model *modelconfig.Config
	// caps are a task run's agent capabilities (nil: the task's).
	caps []string
	// modelAsked is the model config as the caller sent it, before its
	// defaults (limitMemberModel).
	modelAsked modelconfig.Config
}

// validate checks req for caller peer and resolves defaults; trusted
// are the task roots in which a caller that is not root may ask for task
// runs; w loads tasks and checks their names (nil: only commands run).
func validate(req *runapi.RunRequest, peer Peer, trusted []string, w work.Kinds) (*prepared, error) {
	if field := taskKindField(req); field != "" && w == nil {
		return nil, badField(field, "%v", errNoTaskWork)
	}
	if req.Build != nil {
		return validateBuild(req, peer, trusted, w)
	}
	if req.Generate != nil {
		return validateGenerate(req, peer, trusted, w)
	}
	if req.Task != nil {
		return validateTask(req, peer, trusted, w)
	}
	p := &prepared{req: *req}
	if len(req.Command) == 0 || req.Command[0] == "" {
		return nil, badField("command", "must be a non-empty array whose first element names a program")
	}
	if len(req.Command) > maxArgs {
		return nil, badField("command", "has %d arguments (at most %d)", len(req.Command), maxArgs)
	}
	if err := checkStrings("command", req.Command); err != nil {
		return nil, err
	}
	if len(req.Env) > maxEnv {
		return nil, badField("env", "has %d entries (at most %d)", len(req.Env), maxEnv)
	}
	if err := checkStrings("env", req.Env); err != nil {
		return nil, err
	}
	for i, kv := range req.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return nil, badField(indexField("env", i), "must be KEY=VALUE, got %q", kv)
		}
	}
	if req.Dir != "" && !filepath.IsAbs(req.Dir) {
		return nil, badField("dir", "must be an absolute path, got %q", req.Dir)
	}
	if t := req.TimeoutSeconds; math.IsNaN(t) || t < 0 || t > maxTimeoutSecond {
		return nil, badField("timeout_s", "must be between 0 (the default) and %d seconds, got %v", maxTimeoutSecond, t)
	}
	if err := p.parsePolicy(); err != nil {
		return nil, err
	}
	if err := p.resolveIdentity(peer); err != nil {
		return nil, err
	}
	if err := p.checkCapabilities(peer); err != nil {
		return nil, err
	}
	if err := p.compileSeccomp(); err != nil {
		return nil, err
	}
	return p, nil
}

// taskKindField names the part of req that makes it a task run, a
// generation or a build ("" for a command).
func taskKindField(req *runapi.RunRequest) string {
	switch {
	case req.Build != nil:
		return "build"
	case req.Generate != nil:
		return "generate"
	case req.Task != nil:
		return "task"
	}
	return ""
}

// compileSeccomp compiles the request's profile (the default one when it
// names none) for the capabilities the tree will hold.
func (p *prepared) compileSeccomp() error {
	req := &p.req
	switch {
	case req.NoSeccomp && !isNull(req.Seccomp):
		return badField("no_seccomp", "contradicts the seccomp profile given")
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
	prof, err := sandbox.ParseProfile(req.Seccomp, "seccomp")
	if err != nil {
		return badField("seccomp", "%v", err)
	}
	f, err := sandbox.CompileProfile(prof, sandbox.CompileOptions{Capabilities: capability.Held(p.req.Capabilities)})
	if err != nil {
		return badField("seccomp", "%v", err)
	}
	p.seccomp = f
	return nil
}

func (p *prepared) parsePolicy() error {
	req := &p.req
	if isNull(req.Policy) {
		switch {
		case !isNull(req.Baseline):
			return badField("baseline", "a baseline needs a policy")
		case req.Semantics != "":
			return badField("semantics", "semantics need a policy")
		case req.RefuseSymlinks:
			return badField("refuse_symlinks", "refusing symlinks needs a policy")
		}
		return nil
	}
	pol, err := policy.ParsePolicy(req.Policy, "policy")
	if err != nil {
		return badField("policy", "%v", err)
	}
	p.policy = pol
	sem, err := policy.ParseSemantics(req.Semantics)
	if err != nil {
		return badField("semantics", "%v", err)
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
			return badField("baseline", "must be \"default\", \"none\" or a spec object, got %q", name)
		}
		return nil
	}
	spec, err := policy.ParseSpec(req.Baseline, "baseline")
	if err != nil {
		return badField("baseline", "%v", err)
	}
	p.baseline = policy.SpecBaseline(spec)
	return nil
}

// resolveIdentity decides the uid/gid of the tree: a caller that is not
// root runs as itself; root may choose, but uid 0 needs allow_root.
func (p *prepared) resolveIdentity(peer Peer) error {
	req := &p.req
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
		return badField("allow_root", "running the tree as root (uid 0) must be asked for explicitly")
	}
	if p.uid == 0 && peer.UID != 0 {
		return forbidden(RuleOwnIdentity, "only root may run a tree as root")
	}
	return nil
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

func checkStrings(field string, list []string) error {
	for i, s := range list {
		if len(s) > maxStringBytes {
			return badField(indexField(field, i), "is %d bytes long (at most %d)", len(s), maxStringBytes)
		}
		if strings.IndexByte(s, 0) >= 0 {
			return badField(indexField(field, i), "contains a NUL byte")
		}
	}
	return nil
}

func indexField(field string, i int) string {
	return field + "[" + strconv.Itoa(i) + "]"
}

// validateTask checks a task run: a caller that is not root may only use
// a trusted task dir (checkTrustedTaskDir), the task loads, the policy
// source and the agent make sense; the command and identity are the
// task's.
func validateTask(req *runapi.RunRequest, peer Peer, trusted []string, w work.Kinds) (*prepared, error) {
	p := &prepared{req: *req}
	tr := req.Task
	switch {
	case len(req.Command) > 0 || req.Dir != "" || len(req.Env) > 0:
		return nil, badField("command", "a task run takes its command, directory and environment from the task")
	case req.UID != nil || req.GID != nil || req.AllowRoot || len(req.Capabilities) > 0:
		return nil, badField("uid", "a task run's agent runs as the task's user")
	case !isNull(req.Seccomp) || req.NoSeccomp:
		return nil, badField("seccomp", "a task run uses the default seccomp profile")
	case !isNull(req.Baseline):
		return nil, badField("baseline", "a task run's baseline is the spec's implicit_permissions")
	case req.WaitTree:
		return nil, badField("wait_tree", "a task run ends when its agent, the container's init, ends")
	case !filepath.IsAbs(tr.Dir):
		return nil, badField("task.dir", "must be an absolute path, got %q", tr.Dir)
	}
	if peer.UID != 0 {
		if ferr := checkTrustedTaskDir(tr.Dir, trusted); ferr != nil {
			return nil, ferr
		}
	}
	t, err := w.LoadTask(tr.Dir)
	if err != nil {
		return nil, badField("task.dir", "%v", err)
	}
	p.task = t // the agent's uid and gid are the image's user, known once it is built (executeTask)
	switch tr.PolicySource {
	case runapi.SourceUnconstrained, runapi.SourceSpec:
		if !isNull(req.Policy) {
			return nil, badField("policy", "only policy source %q takes a policy", runapi.SourcePolicy)
		}
	case runapi.SourcePolicy:
		if isNull(req.Policy) {
			return nil, badField("policy", "policy source %q needs a policy", runapi.SourcePolicy)
		}
		pol, err := policy.ParsePolicyFor(req.Policy, "policy", t.PermissionSpec())
		if err != nil {
			return nil, badField("policy", "%v", err)
		}
		p.policy = pol
	default:
		return nil, badField("task.policy_source", "must be unconstrained, spec or policy, got %q", tr.PolicySource)
	}
	if err := w.CheckAgent(t, tr.Agent); err != nil {
		return nil, badField("task.agent", "%v", err)
	}
	if err := p.takeModel(); err != nil {
		return nil, err
	}
	sem, err := policy.ParseSemanticsOr(tr.Semantics, policy.DefaultTaskSemantics)
	if err != nil {
		return nil, badField("task.semantics", "%v", err)
	}
	named := *p.req.Task
	named.Semantics = string(sem) // recorded as applied
	p.req.Task = &named
	if err := p.takeTaskCaps(peer); err != nil {
		return nil, err
	}
	if err := p.checkAllowHosts(); err != nil {
		return nil, err
	}
	if err := checkRequests(p.req.Task); err != nil {
		return nil, err
	}
	return p, nil
}

// checkAllowHosts checks a task run's agent_allow_hosts (each an
// allow-list entry, docs/tasks.md "Network policy"), naming a bad one.
func (p *prepared) checkAllowHosts() error {
	if _, err := netpolicy.ParseAllowList("task.agent_allow_hosts", p.req.Task.AgentAllowHosts); err != nil {
		return badField("task.agent_allow_hosts", "%v", err)
	}
	return nil
}

// takeTaskCaps checks a task run's agent capability set: known names,
// and from a caller that is not root none beyond Docker's default set.
func (p *prepared) takeTaskCaps(peer Peer) error {
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
func (p *prepared) takeModel() error {
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
	return nil
}
