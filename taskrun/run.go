package taskrun

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"go.uber.org/zap"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/sandbox"
	"github.com/authbench/authbench/tasks"
)

// Paths inside the container.
const (
	solutionMount     = "/solution"
	binaryInContainer = "/.authbench/authbench"
)

// Files of a run besides result.json.
const (
	EventsFile      = "events.jsonl"
	AgentStdoutFile = "agent-stdout.log"
	AgentStderrFile = "agent-stderr.log"
	BuildLogFile    = "build.log"
	PlanFile        = "plan.json"
)

// defaultAgentTimeout applies when task.toml sets none.
const defaultAgentTimeout = 30 * time.Minute

// runner carries one run's state.
type runner struct {
	o      Options
	log    *zap.Logger
	res    *Result
	image  *env.TaskImage
	rootfs *env.Rootfs
	plan   *policy.Plan
	id     string
}

// rootfsDir is where in Options.Dir a run mounts its rootfs.
const rootfsDir = "rootfs"

// Cleanup removes what a run that was killed left in its directory dir:
// the mounted rootfs. Its containers must be gone (runc delete) first.
func Cleanup(dir string) error {
	return env.RemoveRootfs(filepath.Join(dir, rootfsDir))
}

// Run carries out one task run and writes Dir/result.json. The returned
// error is for runs that could not be carried out at all; the result
// then says why too, and is written whenever Dir is writable.
func Run(ctx context.Context, o Options) (*Result, error) {
	t := o.Task
	r := &runner{o: o, log: o.Log, res: &Result{
		Task: t.Name, Dataset: string(t.Dataset()), PolicySource: o.Source, Agent: o.Agent,
		Denials: []audit.Denial{}, TracedSensitive: []SensitiveAccess{}, UnenforcedRights: []string{},
		PlanWiderThanPolicy: []policy.Widening{},
	}}
	if r.log == nil {
		r.log = zap.NewNop()
	}
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	r.id = "authbench-" + hex.EncodeToString(b[:])
	if err := os.MkdirAll(o.Dir, 0o750); err != nil {
		return nil, fmt.Errorf("task run %s: %w", t.Name, err)
	}
	err := r.run(ctx)
	if err != nil {
		r.res.Error = err.Error()
		r.res.Utility, r.res.Attack = false, nil
	}
	if werr := r.res.write(o.Dir); werr != nil {
		return r.res, errors.Join(err, werr)
	}
	return r.res, err
}

func (r *runner) run(ctx context.Context) error {
	t := r.o.Task
	if t.Spec == nil {
		return fmt.Errorf("task %s has no permission spec", t.Name)
	}
	argv, script, err := ParseAgent(t, r.o.Agent)
	if err != nil {
		return err
	}
	if err := sandbox.CheckStatic(r.o.Self); err != nil {
		return err
	}
	if r.image, err = r.buildImage(ctx); err != nil {
		return err
	}
	if r.rootfs, err = env.NewRootfs(r.image.Rootfs, filepath.Join(r.o.Dir, rootfsDir)); err != nil {
		return err
	}
	defer func() {
		if err := r.rootfs.Close(); err != nil {
			r.log.Error("close rootfs", zap.Error(err))
		}
	}()
	if err := r.compilePlan(script); err != nil {
		return err
	}
	if err := r.runAgent(ctx, argv); err != nil {
		return err
	}
	if ctx.Err() != nil {
		// Cancelled (or out of time) while the agent ran: the verifiers
		// would only be killed at once too.
		return fmt.Errorf("task run ended before verification: %w", context.Cause(ctx))
	}
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
	return nil
}

// buildImage makes sure the task image (and the local bases it needs)
// exist.
func (r *runner) buildImage(ctx context.Context) (*env.TaskImage, error) {
	log, err := os.Create(filepath.Join(r.o.Dir, BuildLogFile))
	if err != nil {
		return nil, err
	}
	defer log.Close()
	img, built, err := env.BuildTask(ctx, r.o.Images, r.o.Task, env.BuildOptions{Builder: r.o.Builder, BaseMap: r.o.BaseMap, Log: log})
	if err != nil {
		return nil, err
	}
	r.log.Info("task image", zap.String("task", r.o.Task.Name), zap.Bool("built", built), zap.String("rootfs", img.Rootfs))
	return img, nil
}

// compilePlan compiles the run's policy (with the spec's implicit
// permissions as the baseline, and the agent's script readable) against
// the rootfs; the unconstrained row has no plan.
func (r *runner) compilePlan(script string) error {
	var pol *policy.Policy
	switch r.o.Source {
	case SourceUnconstrained:
		return nil
	case SourceSpec:
		pol = SpecPolicy(r.o.Task.Spec)
	case SourcePolicy:
		if r.o.Policy == nil {
			return errors.New("policy source \"policy\" needs a policy")
		}
		pol = r.o.Policy
	default:
		return fmt.Errorf("unknown policy source %q", r.o.Source)
	}
	base := policy.SpecBaseline(r.o.Task.Spec)
	if script != "" {
		// The harness's copy of the agent's script is not part of the
		// task: its mount point is readable (a hierarchy rule, resolved
		// to the bind mount inside the container).
		if err := os.MkdirAll(filepath.Join(r.rootfs.Path, solutionMount), 0o755); err != nil {
			return err
		}
		p := policy.MustPattern(solutionMount + "/**")
		base.Permissions[policy.Read] = append(append([]policy.Pattern(nil), base.Permissions[policy.Read]...), p)
	}
	root, err := policy.NewRoot(r.rootfs.Path)
	if err != nil {
		return err
	}
	plan, err := policy.CompilePlan(pol, base, root)
	if err != nil {
		return fmt.Errorf("compile plan: %w", err)
	}
	r.plan = plan
	enf := sandbox.EnforcementFor(sandbox.KernelLandlockABI())
	r.res.LandlockABI = enf.KernelABI
	r.res.UnenforcedRights = enf.Gaps()
	r.res.PlanWiderThanPolicy = append(r.res.PlanWiderThanPolicy, plan.Wider...)
	return writeJSON(filepath.Join(r.o.Dir, PlanFile), map[string]any{"plan": plan, "enforcement": enf})
}

// runContainer runs one container to its end in the run's rootfs.
func (r *runner) runContainer(ctx context.Context, name string, cfg env.RunConfig, stdio env.Stdio) (env.RunResult, error) {
	spec, err := env.RuntimeSpec(cfg)
	if err != nil {
		return env.RunResult{}, err
	}
	bundle := filepath.Join(r.o.Dir, "bundle-"+name)
	if err := env.WriteBundle(bundle, spec); err != nil {
		return env.RunResult{}, err
	}
	defer os.RemoveAll(bundle)
	return r.o.Runc.Run(ctx, bundle, r.id+"-"+name, stdio)
}

// AgentUser is the uid and gid the task's agent runs as (see taskUser).
func AgentUser(t *tasks.Task) (uid, gid int) { return taskUser(t) }

// taskUser is the agent's identity: task.toml's [agent] user when it is
// numeric or root, else an unprivileged uid/gid 1000.
func taskUser(t *tasks.Task) (uid, gid int) {
	switch u := t.Config.Agent.User; u {
	case "root", "0":
		return 0, 0
	default:
		var n int
		if _, err := fmt.Sscanf(u, "%d", &n); err == nil && n > 0 {
			return n, n
		}
	}
	return 1000, 1000
}
