package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/authbench/authbench/agent/modelconfig"
	"github.com/authbench/authbench/capability"
	"github.com/authbench/authbench/cli/core"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/agent"
	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/internal/termtext"
	"github.com/authbench/authbench/netproxy/netpolicy"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
)

// taskRunFlags are the flags of `authbench task run`.
type taskRunFlags struct {
	policy        string
	unconstrained bool
	specPolicy    bool
	agent         string
	semantics     string
	caps          string
	allowHosts    []string
	out           string
	baseMap       []string
	embedded      embeddedFlags
	models        modelFlags
	requests      requestFlags
}

func (a *app) taskCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "task", Short: "Run a task in its environment under a policy source"}
	var f taskRunFlags
	run := &cobra.Command{
		Use:   `run TASK (--policy P | --unconstrained | --spec-policy) --agent oracle|shortcut|cmd:"..."|openai:MODEL|installed:NAME[:MODEL] [--out DIR]`,
		Short: "Run a task's agent in a fresh rootfs of its image, confined and traced, then its verifiers",
		Long: `Build (or reuse) the task's image, lay a fresh copy-on-write rootfs over it,
run the agent in it under runc through sandbox-init (Landlock from the policy
source plus the spec's implicit permissions, seccomp, no capabilities),
traced with eBPF; then run the utility verifier and, for sensitive tasks, the
attack verifier in the same rootfs without the policy.

Policy sources: --policy FILE (a model's π), --spec-policy (the spec's
required_permissions), --unconstrained (no Landlock). --semantics picks how
the policy becomes Landlock rules: published (default; the published
AuthBench launcher's rules: a write of a path opens its parent directory,
a read of a missing path its closest existing ancestor) or precise (as
little as Landlock can express). result.json and plan.json record it and
list where the plan is wider than the policy.

The agent runs as the image's USER (root when it has none) unless
task.toml's [agent] user says otherwise, resolved through the image's
/etc/passwd and /etc/group; a confined agent holds no capabilities, even
as root. The oracle and shortcut get a writable copy of solution/ at
/solution; /logs/agent and /logs/verifier exist; the verifiers get tests/
copied to /tests after the agent has ended, and tests/test.sh's reward is
read from /logs/verifier/reward.json or reward.txt (1 passes). Services of
environment/docker-compose.yaml other than the agent's run as sibling
containers on the agent's private network, reachable by their names. The run goes through the
daemon when one listens, else runs embedded (root). --out DIR receives
result.json, events.jsonl, plan.json and the agent and verifier logs.

--agent installed:NAME[:MODEL] (openclaw, pi) runs that harness, installed
from npm into a cached layer, as the confined, traced agent of the
container, configured for the same endpoint and model with a placeholder
key; the run's egress proxy lets it reach the endpoint only and adds the
real key. The run's files gain harness-transcript.jsonl, trajectory.json
and network.jsonl (docs/agents.md).

--agent openai:MODEL runs a model of an OpenAI-compatible endpoint as the
agent: the model's loop runs in the daemon (or this process), and its tool
calls (shell, read_file, write_file, finish) run in a tool process that is
the confined, traced agent of the container (authbench itself, so the plan
also lets /.authbench/authbench be executed; plan_wider_than_policy says
so). The endpoint and options come from the flags below, else the [model]
table of the config file, else OPENAI_BASE_URL and OPENAI_API_KEY; the key
is read from the environment variable --api-key-env names, never from the
command line, and is never stored with the run. The run's files gain
trajectory.json (the transcript, ATIF), and result.json agent_turns,
agent_tokens, agent_stop_reason and model.
Exit status 0 when the run was carried out, whatever its verdicts.`,
		Args: exactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error { return a.runTask(f, args[0]) },
	}
	fl := run.Flags()
	fl.StringVar(&f.policy, "policy", "", "run under the policy `FILE`")
	fl.BoolVar(&f.unconstrained, "unconstrained", false, "run without Landlock")
	fl.BoolVar(&f.specPolicy, "spec-policy", false, "run under the spec's required_permissions")
	fl.StringVar(&f.agent, "agent", "", `oracle, shortcut, cmd:"COMMAND", openai:MODEL or installed:NAME[:MODEL] (required)`)
	fl.StringVar(&f.semantics, "semantics", string(policy.DefaultTaskSemantics), "how the policy becomes Landlock rules: `published` (the published AuthBench launcher's rules) or precise")
	fl.StringVar(&f.caps, "caps", "", "the agent's capabilities: none, docker (Docker's default set) or a `LIST` such as CHOWN,FOWNER (default: the task's, Docker's set unless task.toml's cap_add/cap_drop change it)")
	fl.StringArrayVar(&f.allowHosts, "agent-allow-host", nil, "let the agent reach `HOST:PORT` through the run's egress proxy (repeatable; makes the agent's network an allowlist, docs/tasks.md)")
	fl.StringVar(&f.out, "out", "", "copy the run's files to `DIR`")
	addImageMapFlag(fl, &f.baseMap, imageMapUsage)
	f.embedded.register(fl, imagesDirUsage, noTraceUsage)
	f.models.register(fl, "agent")
	f.requests.register(fl)
	cmd.AddCommand(run)
	return cmd
}

// taskRequest checks the flags and builds the daemon request.
func (f taskRunFlags) taskRequest(dir string) (*runapi.RunRequest, error) {
	sources := 0
	req := &runapi.RunRequest{Task: &runapi.TaskRequest{Agent: f.agent, Semantics: f.semantics, Caps: f.caps, AgentAllowHosts: f.allowHosts}}
	if _, err := policy.ParseSemanticsOr(f.semantics, policy.DefaultTaskSemantics); err != nil {
		return nil, core.UsageErrorf("--semantics: %v", err)
	}
	if _, err := netpolicy.ParseAllowList("--agent-allow-host", f.allowHosts); err != nil {
		return nil, core.UsageErrorf("%v", err)
	}
	if err := f.requests.apply(req.Task); err != nil {
		return nil, err
	}
	if f.caps != "" {
		if _, err := capability.ParseSet(f.caps); err != nil {
			return nil, core.UsageErrorf("--caps: %v", err)
		}
	}
	if f.policy != "" {
		sources++
		req.Task.PolicySource = runapi.SourcePolicy
		data, err := core.ReadFileArg("--policy", f.policy)
		if err != nil {
			return nil, err
		}
		req.Task.Policy = data
	}
	if f.unconstrained {
		sources++
		req.Task.PolicySource = runapi.SourceUnconstrained
	}
	if f.specPolicy {
		sources++
		req.Task.PolicySource = runapi.SourceSpec
	}
	if sources != 1 {
		return nil, core.UsageErrorf("task run: give exactly one of --policy, --unconstrained, --spec-policy")
	}
	if f.agent == "" {
		return nil, core.UsageErrorf(`task run: --agent is required (oracle, shortcut, cmd:"COMMAND", openai:MODEL or installed:NAME[:MODEL])`)
	}
	model, err := f.models.config(f.agent)
	if err != nil {
		return nil, err
	}
	req.Task.Model = model
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, core.UsageErrorf("task run: %v", err)
	}
	req.Task.Dir = abs
	m, err := imageMap(f.baseMap)
	if err != nil {
		return nil, err
	}
	req.Task.BaseMap = m
	return req, nil
}

func (a *app) runTask(f taskRunFlags, dir string) error {
	req, err := f.taskRequest(dir)
	if err != nil {
		return err
	}
	api, done, err := a.taskAPI(f.embedded)
	if err != nil {
		return err
	}
	defer done()
	ctx, stop := interruptContext()
	defer stop()
	final, err := runapi.RunTask(ctx, api, req)
	if err != nil {
		return runFailed(ctx, err)
	}
	if f.out != "" {
		if err := copyRunFiles(ctx, api, final.ID, f.out); err != nil {
			return fmt.Errorf("task run: --out: %w", err)
		}
	}
	res := final.TaskResult
	if res == nil {
		return fmt.Errorf("task run %s %s: %s", final.ID, final.State, final.Error)
	}
	if a.JSONOut {
		if err := a.PrintJSON(res); err != nil {
			return err
		}
	} else {
		printTaskResult(a.Stderr, final.ID, res)
	}
	if res.Error != "" {
		return fmt.Errorf("task run %s: %s", final.ID, res.Error)
	}
	return nil
}

// taskAPI is the daemon when one listens, else an embedded manager.
func (a *app) taskAPI(f embeddedFlags) (runapi.API, func(), error) {
	if c := a.DaemonClient(); c != nil {
		return c, c.Close, nil
	}
	if os.Geteuid() != 0 {
		return nil, nil, fmt.Errorf("task run: no daemon answers on %q, and running embedded needs root", a.Socket)
	}
	registries, err := configRegistries()
	if err != nil {
		return nil, nil, err
	}
	// A killed process leaves runs in flight: its watchdog recovers them
	// (containers, overlays, records) when it ends, or the next start.
	e, err := a.embed(embedConfig{stateDir: f.stateDir, imagesDir: f.imagesDir, registries: registries, trace: !f.noTrace, watchdog: true})
	if isTracerError(err) {
		return nil, nil, fmt.Errorf("task run: load tracer (--no-trace runs untraced): %w", err)
	}
	if err != nil {
		return nil, nil, err
	}
	return e.Local, func() { _ = a.closeEmbedded(e) }, nil
}

// copyRunFiles copies a run's files into the out dir dir, which must be
// the caller's alone (safefile.OpenOutDir).
func copyRunFiles(ctx context.Context, api runapi.API, id, dir string) error {
	out, err := safefile.OpenOutDir(dir, os.Geteuid())
	if err != nil {
		return err
	}
	defer out.Close()
	for _, f := range runapi.TaskArtifacts {
		data, err := runapi.ReadLog(ctx, api, id, f.API)
		if err != nil {
			return err
		}
		if len(data) == 0 {
			continue // the run made no such file
		}
		if err := out.WriteFile(f.File, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func printTaskResult(w io.Writer, id string, r *runapi.TaskResult) {
	fmt.Fprintf(w, "task %s (%s), %s (%s semantics), agent %s: %s\n", termtext.Escape(r.Task), r.Dataset,
		termtext.Escape(r.PolicySource), r.Semantics, termtext.Escape(r.Agent), taskVerdict(r))
	if id := r.AgentIdentity; id != nil {
		fmt.Fprintf(w, "  agent user %s (uid %d, gid %d)\n", termtext.Escape(id.User), id.UID, id.GID)
	}
	if r.AgentCapabilities != nil {
		caps := strings.Join(r.AgentCapabilities, ",")
		if caps == "" {
			caps = "none"
		}
		fmt.Fprintf(w, "  agent capabilities %s\n", caps)
	}
	for _, s := range r.ImageSubstitutions {
		svc := ""
		if s.Service != "" {
			svc = " (service " + s.Service + ")"
		}
		fmt.Fprintf(w, "  image %s → %s: %s\n", termtext.Escape(s.Ref+svc), termtext.Escape(s.Used), termtext.Escape(s.Why))
	}
	for _, cw := range r.ComposeWarnings {
		fmt.Fprintf(w, "  compose: %s\n", termtext.Escape(cw))
	}
	if !r.AgentDidNotRun {
		fmt.Fprintf(w, "  agent exit %d in %.2fs (setup %.0f ms); %d events, %d lost; %d denials; %d sensitive accesses\n",
			r.ExitCode, r.DurationS, r.SetupMS, r.Events, r.LostEvents, len(r.Denials), len(r.TracedSensitive))
	}
	if r.AgentStopReason != "" {
		var tokens int64
		if r.AgentTokens != nil {
			tokens = r.AgentTokens.Total
		}
		fmt.Fprintf(w, "  model agent: %s after %d turns, %d tokens", r.AgentStopReason, r.AgentTurns, tokens)
		if r.AgentError != "" {
			fmt.Fprintf(w, " (%s)", termtext.Escape(r.AgentError))
		}
		fmt.Fprintln(w)
	}
	printRequests(w, r)
	for _, d := range r.Denials {
		fmt.Fprintf(w, "  denied  %-7s %-8s %s [%s]\n", d.Axis, d.Op, termtext.Escape(d.Path), d.Errno)
	}
	for _, s := range r.TracedSensitive {
		fmt.Fprintf(w, "  SENSITIVE %-7s %-8s %s (%s)\n", s.Axis, s.Op, termtext.Escape(s.Path), termtext.Escape(s.Pattern))
	}
	if r.VerifierError != "" {
		fmt.Fprintf(w, "  verifier error: %s\n", termtext.Escape(r.VerifierError))
	}
	if (r.ExitCode != 0 || r.TimedOut) && r.Utility && r.Error == "" {
		fmt.Fprintf(w, "  the agent failed (exit %d, timed out %v) but the utility verifier passed\n", r.ExitCode, r.TimedOut)
	}
	for _, f := range r.VerifierTampered {
		fmt.Fprintf(w, "  TAMPERED %s verifier %s %s: %s\n", f.Verifier, f.Op, f.Path, f.Why)
	}
	if r.VerifierTamperedOmitted > 0 {
		fmt.Fprintf(w, "  TAMPERED and %d more files\n", r.VerifierTamperedOmitted)
	}
	if !r.VerifiersTraced && r.Error == "" {
		fmt.Fprintf(w, "  the verifiers were not traced completely: tampering could have gone unseen\n")
	}
	fmt.Fprintf(w, "  run %s\n", id)
}

// taskVerdict is a task run's verdicts in a few words, or the error of a
// run whose agent did not run (which has none).
func taskVerdict(r *runapi.TaskResult) string {
	if r.AgentDidNotRun {
		return "error: " + termtext.Escape(r.Error) + " (the agent did not run)"
	}
	attack := "n/a (standard task)"
	if r.Attack != nil {
		attack = fmt.Sprint(*r.Attack)
	}
	return fmt.Sprintf("utility %v, attack %s", r.Utility, attack)
}

// modelConfig is the model of an openai:MODEL agent from its flags, the
// config file and the environment; nil for other agents.
func modelConfig(agentName string, f *agent.Flags, configFile string) (*modelconfig.Config, error) {
	name, ok, err := modelconfig.ParseModelName(agentName)
	if err != nil {
		return nil, core.UsageErrorf("--agent: %v", err)
	}
	if !ok {
		return nil, nil
	}
	file, required := configFile, true
	if file == "" {
		file, required = env.DefaultConfigFile, false
	}
	cfg, err := f.Config(name, file, required, os.Getenv)
	if err != nil {
		return nil, core.UsageErrorf("--agent %s: %v", agentName, err)
	}
	return &cfg, nil
}
