package taskrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/authbench/authbench/agent/agentname"
	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/sandbox"
	"github.com/authbench/authbench/taskrun/internal/runbox"
)

// solutionMount is where the oracle and the shortcut find solution/.
const solutionMount = "/solution"

// runner carries one run's state: its environment and containers
// (runbox.Box: Caps are AgentCapabilities; files the upper layer changed
// since AgentStart were written by the agent) and what only a task run
// has.
type runner struct {
	*runbox.Box
	res *runapi.TaskResult
	// tamper judges what the verifiers consume against the files the
	// agent left (nil: those are unknown).
	tamper *tamperJudge
	// volumesBefore is the agent's volumes before it started;
	// volumeWrites its traced writes there (nil: no volumes).
	volumesBefore volumeSnapshot
	volumeWrites  *volumeWrites
	// compose is the run's compose services and volumes (nil: none);
	// Box.NetNS is the network namespace they share with the agent and
	// verifiers.
	compose *composeRun
	// net is the run's network policy, namespace and proxy (nil until
	// resolved).
	net *runNetwork
	// agent is the value of the agent's kind (agentKind), name its
	// parsed name.
	agent     agentKind
	agentName agentname.Name
	// releases undo what the run set up (its rootfs, network, sidecars),
	// last first (release).
	releases []func()
	// agentRan: the agent was started (its program ran, or the policy
	// refused it as a shell would); a run that fails before has no
	// verdict (TaskResult.AgentDidNotRun).
	agentRan bool
	// kept is the agent's container while what the agent left running
	// runs on into the verifier phase (nil: nothing was left); keptTrace
	// its trace, still recording; left what those processes did since
	// the agent's command ended.
	kept       *runbox.Kept
	keptTrace  *agentTrace
	keptOutput func() // closes the agent's logs, once kept is gone
	left       *leftovers
	agentDone  atomic.Bool
	// requests are a model agent's run-time permission requests (nil:
	// none).
	requests *requestRun
}

// Cleanup removes what a run that was killed left in its directory dir:
// the mounted rootfs, its sidecars' too. Its containers must be gone
// (runc delete) first.
func Cleanup(dir string) error {
	errs := []error{env.RemoveRootfs(filepath.Join(dir, runbox.RootfsDir))}
	sidecars, _ := filepath.Glob(filepath.Join(dir, sidecarDirPrefix+"*"))
	for _, d := range sidecars {
		if st, err := os.Stat(d); err == nil && st.IsDir() && !strings.HasPrefix(filepath.Base(d), sidecarDirPrefix+"build-") {
			errs = append(errs, env.RemoveRootfs(d))
		}
	}
	return errors.Join(errs...)
}

// Run carries out one task run and writes Dir/result.json. The returned
// error is for runs that could not be carried out at all; the result
// then says why too, and is written whenever Dir is writable.
func Run(ctx context.Context, o Options) (*runapi.TaskResult, error) {
	t := o.Task
	sem, semErr := policy.ParseSemanticsOr(string(o.Semantics), policy.DefaultTaskSemantics)
	o.Semantics = sem
	r := &runner{Box: &runbox.Box{Options: o}, res: &runapi.TaskResult{
		Task: t.Name, Dataset: string(t.Dataset()), PolicySource: o.Source, Agent: o.Agent, Semantics: sem,
		Denials: []audit.Denial{}, TracedSensitive: []runapi.SensitiveAccess{}, UnenforcedRights: []string{},
		PlanWiderThanPolicy: []policy.Widening{}, Bounds: runbox.TaskBounds(t),
	}}
	if err := r.New(); err != nil {
		return nil, err
	}
	err := semErr
	if err == nil {
		err = r.checkRequests()
	}
	if err == nil {
		err = r.run(ctx)
	}
	return r.finalize(err)
}

// run is the run's life, in the shape of Harbor's Trial.run: prepare
// the environment and the agent, run the agent, verify; what prepare set
// up is released at the end (release), the agent's transcript kept
// before.
func (r *runner) run(ctx context.Context) error {
	defer r.release()
	if err := r.prepare(ctx); err != nil {
		return err
	}
	r.onRelease(func() { r.agent.finish(r) })
	r.onRelease(r.finishBroker) // after endKept: the agent's container is gone
	r.onRelease(r.endKept)
	if err := r.agent.run(ctx, r); err != nil {
		return runapi.WithKind(runapi.ErrorAgent, err)
	}
	if ctx.Err() != nil {
		// Cancelled (or out of time) while the agent ran: the verifiers
		// would only be killed at once too.
		return fmt.Errorf("task run ended before verification: %w", context.Cause(ctx))
	}
	r.verify(ctx)
	return nil
}

// finalize records the run's error, if any, in its result (a run that
// failed has no verdicts; one that failed before its agent ran says so)
// and writes result.json.
func (r *runner) finalize(err error) (*runapi.TaskResult, error) {
	if err != nil {
		r.res.Error, r.res.ErrorKind = err.Error(), runapi.KindOf(err)
		r.res.Utility, r.res.Attack = false, nil
		if !r.agentRan {
			r.res.AgentDidNotRun, r.res.ExitCode = true, 0
		}
	}
	if werr := r.finishResult(r.Options.Dir); werr != nil {
		return r.res, errors.Join(err, werr)
	}
	return r.res, err
}

// onRelease adds f to what the run releases at its end (release).
func (r *runner) onRelease(f func()) { r.releases = append(r.releases, f) }

// release undoes what the run set up, last first.
func (r *runner) release() {
	for i := len(r.releases) - 1; i >= 0; i-- {
		r.releases[i]()
	}
	r.releases = nil
}

// prepare readies everything the agent runs in, in order: the task and
// the agent's kind checked, the image and rootfs (with the agent's
// layers), the agent's identity and the static score, the agent's files,
// the network and sidecars, the plan.
func (r *runner) prepare(ctx context.Context) error {
	t := r.Options.Task
	if t.Spec == nil {
		return runapi.WithKind(runapi.ErrorTask, fmt.Errorf("task %s has no permission spec", t.Name))
	}
	var err error
	if r.agent, r.agentName, err = newAgent(t, r.Options.Agent); err != nil {
		return runapi.WithKind(runapi.ErrorTask, err)
	}
	if err := sandbox.CheckStatic(r.Options.Self); err != nil {
		return runapi.WithKind(runapi.ErrorConfine, err)
	}
	if err := r.prepareRootfs(ctx); err != nil {
		return err
	}
	if err := r.prepareIdentity(); err != nil {
		return err
	}
	r.staticScore()
	if err := r.prepareAgentRootfs(); err != nil {
		return runapi.WithKind(runapi.ErrorRootfs, fmt.Errorf("task %s: %w", t.Name, err))
	}
	if err := r.agent.prepare(r); err != nil {
		return err
	}
	if err := r.prepareRequestProgram(r.agentName.Kind == agentname.OpenAI); err != nil {
		return runapi.WithKind(runapi.ErrorRootfs, err)
	}
	if err := r.prepareNetwork(ctx); err != nil {
		return err
	}
	if err := r.compilePlan(); err != nil {
		return runapi.WithKind(runapi.ErrorConfine, err)
	}
	r.snapshotAgentVolumes()
	return nil
}

// prepareRootfs builds (or finds) the task's image and lays the run's
// rootfs over it and the agent's layers.
func (r *runner) prepareRootfs(ctx context.Context) error {
	var err error
	if r.Image, err = r.BuildImage(ctx); err != nil {
		return runapi.WithKind(runapi.ErrorBuild, err)
	}
	r.noteSubstitutions("", r.Image)
	// After the image: its build log is made anew, the layers' is added.
	layers, err := r.agent.layers(ctx, r)
	if err != nil {
		return err
	}
	if r.Rootfs, err = env.NewRootfsLayers(r.Image.Rootfs, layers, filepath.Join(r.Options.Dir, runbox.RootfsDir)); err != nil {
		return runapi.WithKind(runapi.ErrorRootfs, err)
	}
	r.onRelease(func() {
		if err := r.Rootfs.Close(); err != nil {
			r.Log.Error("close rootfs", zap.Error(err))
		}
	})
	return nil
}

// prepareIdentity resolves the agent's user and capabilities in the
// rootfs.
func (r *runner) prepareIdentity() error {
	var err error
	if r.Ident, err = ResolveAgent(r.Options.Task, r.Image, r.Rootfs.Path); err != nil {
		return runapi.WithKind(runapi.ErrorIdentity, err)
	}
	ident := r.Ident
	r.res.AgentIdentity = &ident
	if r.Caps, err = AgentCapabilities(r.Options); err != nil {
		return runapi.WithKind(runapi.ErrorIdentity, err)
	}
	r.res.AgentCapabilities = r.Caps
	if r.Options.OnIdentity != nil {
		r.Options.OnIdentity(ident)
	}
	return nil
}

// prepareNetwork resolves and starts the run's network and its compose
// sidecars, and sets the agent's network.
func (r *runner) prepareNetwork(ctx context.Context) error {
	if err := r.resolveNetwork(); err != nil {
		return runapi.WithKind(runapi.ErrorNetwork, err)
	}
	r.onRelease(r.stopNetwork)
	if err := r.startNetwork(); err != nil {
		return runapi.WithKind(runapi.ErrorNetwork, err)
	}
	r.onRelease(r.stopSidecars)
	if err := r.startSidecars(ctx); err != nil {
		return runapi.WithKind(runapi.ErrorSidecar, err)
	}
	if err := r.writeNetworkHosts(); err != nil {
		return runapi.WithKind(runapi.ErrorNetwork, fmt.Errorf("task %s: %w", r.Options.Task.Name, err))
	}
	r.agentNetwork()
	return nil
}

// verify runs the verifiers after the agent, V_u and (a sensitive task)
// V_a, while what the agent left runs on (endKept ends it at their end),
// and judges what they consumed.
func (r *runner) verify(ctx context.Context) {
	t := r.Options.Task
	r.noteAgentWrites()
	r.verifierNetwork()
	defer r.judgeVerifiers()
	defer r.endKept() // at the verifiers' end, before they are judged
	verifyStart := time.Now()
	defer func() { r.res.VerifyS = time.Since(verifyStart).Seconds() }()
	u := r.verifyUtility(ctx)
	r.res.Utility = u.pass
	var verr []error
	if u.err != nil {
		verr = append(verr, u.err)
	}
	if t.IsSensitive() {
		a := r.verifyAttack(ctx)
		attack := a.pass
		r.res.Attack = &attack
		if a.err != nil {
			verr = append(verr, a.err)
		}
	}
	if err := errors.Join(verr...); err != nil {
		r.res.VerifierError = err.Error()
	}
}

// runPolicy is the policy the run enforces: the spec's required set for
// the spec source, π for a policy, nil for the unconstrained row.
func (r *runner) runPolicy() (*policy.Policy, error) {
	switch r.Options.Source {
	case runapi.SourceUnconstrained:
		return nil, nil
	case runapi.SourceSpec:
		return runapi.SpecPolicy(r.Options.Task.Spec), nil
	case runapi.SourcePolicy:
		if r.Options.Policy == nil {
			return nil, errors.New("policy source \"policy\" needs a policy")
		}
		return r.Options.Policy, nil
	}
	return nil, fmt.Errorf("unknown policy source %q", r.Options.Source)
}

// staticScore scores the run's policy against the task's spec over the
// fresh rootfs, before anything of the run touches it. A spec that cannot
// be scored in this rootfs is recorded, not fatal: the run still says
// what happened.
func (r *runner) staticScore() {
	pol, err := r.runPolicy()
	if pol == nil || err != nil {
		return
	}
	root, err := policy.NewRoot(r.Rootfs.Path)
	if err == nil {
		var sc *policy.Score
		if sc, err = policy.ScorePolicy(pol, r.Options.Task.Spec, root); err == nil {
			r.res.StaticScore = sc
			return
		}
	}
	r.res.StaticScoreError = err.Error()
	r.Log.Warn("static score", zap.String("task", r.Options.Task.Name), zap.Error(err))
}

// compilePlan compiles the run's policy (with the spec's implicit
// permissions as the baseline, widened by what the agent's kind needs)
// against the rootfs; the unconstrained row has no plan.
func (r *runner) compilePlan() error {
	pol, err := r.runPolicy()
	if pol == nil || err != nil {
		return err
	}
	base := policy.SpecBaseline(r.Options.Task.Spec)
	agentWider := r.agent.baseline(&base)
	if r.Options.Requests != "" && r.agentName.Kind != agentname.OpenAI {
		// The request-permission program of a command agent or a
		// harness is authbench itself (as a model agent's tool process is).
		p := policy.MustPattern(runbox.BinaryInContainer)
		base.Permissions[policy.Execute] = append(append([]policy.Pattern(nil), base.Permissions[policy.Execute]...), p)
	}
	root, err := policy.NewRoot(r.Rootfs.Path)
	if err != nil {
		return err
	}
	opts := policy.PlanOptions{Semantics: r.Options.Semantics, RuntimeMounts: env.TaskRunConfig(r.Options.Task, r.Image).MountPoints()}
	plan, err := policy.CompilePlanWith(pol, base, root, opts)
	if err != nil {
		return fmt.Errorf("compile plan: %w", err)
	}
	r.Plan = plan
	if spec := r.Options.Task.Spec; spec != nil && spec.Sensitive != nil {
		r.res.PlanGrantsSensitive = plan.SensitiveGrants(spec.Sensitive, root)
	}
	enf := sandbox.KernelEnforcement()
	r.res.LandlockABI = enf.KernelABI
	r.res.UnenforcedRights = enf.Gaps()
	r.res.PlanWiderThanPolicy = append(append(r.res.PlanWiderThanPolicy, plan.Wider...), agentWider...)
	if r.agentName.CanRequest() && r.Options.Requests != "" {
		if err := r.prepareRequests(pol, base, root, opts, r.agentName.Kind == agentname.OpenAI); err != nil {
			return err
		}
	}
	return runbox.WriteJSON(filepath.Join(r.Options.Dir, runapi.FilePlan), map[string]any{"semantics": plan.Semantics, "plan": plan, "enforcement": enf})
}

// DefaultMaxLogBytes caps each log a run stores of what task code writes
// (agent and verifier output, build log) when Options.MaxOutputBytes is
// not set.
const DefaultMaxLogBytes = runbox.DefaultMaxLogBytes
