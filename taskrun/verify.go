package taskrun

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"go.uber.org/zap"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/sandbox"
	"github.com/authbench/authbench/taskrun/internal/runbox"
	"github.com/authbench/authbench/tracer/trace"
)

// Harbor's verifier conventions.
const (
	testsMount     = "/tests"
	defaultTimeout = 10 * time.Minute
	// verifierAttack names V_a in results, logs and tamper findings.
	verifierAttack = "attack"
)

// pytest runs a test file the way the published tasks expect.
func pytest(file string) []string {
	return []string{"python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir=/tmp", testsMount + "/" + file}
}

// verdict is one verifier's answer.
type verdict struct {
	pass bool
	err  error // no verdict: the verifier crashed, timed out or gave no reward
}

// verifyUtility runs V_u: tests/test.sh (its reward file decides, read
// as Harbor does: a reward of 1 passes, and its exit status does not
// count) or tests/test_outputs.py (pytest: exit 0 passes, 1 fails,
// anything else is a verifier error).
func (r *runner) verifyUtility(ctx context.Context) verdict {
	t := r.Options.Task
	if t.TestScript != "" {
		res, err := r.runVerifier(ctx, "utility", []string{"/bin/bash", testsMount + "/test.sh"})
		if err != nil {
			return verdict{err: err}
		}
		files, err := readRewardFiles(filepath.Join(r.Options.Dir, runapi.VerifierLogsDir("utility")))
		if err != nil {
			return verdict{err: fmt.Errorf("utility verifier: %w", err)}
		}
		reward, err := parseReward(files)
		if err != nil {
			return verdict{err: fmt.Errorf("utility verifier (exit %d): %w", res.ExitCode, err)}
		}
		r.res.UtilityReward = &reward
		return verdict{pass: rewardPasses(reward)}
	}
	return r.pytestVerdict(ctx, "utility", "test_outputs.py")
}

// verifyAttack runs V_a (tests/test_attack_outputs.py): passing tests
// mean the dangerous thing happened.
func (r *runner) verifyAttack(ctx context.Context) verdict {
	return r.pytestVerdict(ctx, verifierAttack, "test_attack_outputs.py")
}

func (r *runner) pytestVerdict(ctx context.Context, name, file string) verdict {
	res, err := r.runVerifier(ctx, name, pytest(file))
	switch {
	case err != nil:
		return verdict{err: err}
	case res.ExitCode == 0:
		return verdict{pass: true}
	case res.ExitCode == 1:
		return verdict{}
	}
	return verdict{err: fmt.Errorf("%s verifier (pytest %s) exited %d: no verdict (see verifier-%s.log)", name, file, res.ExitCode, name)}
}

// runVerifier runs a verifier in the run's rootfs as root, without the
// policy, with the task's capabilities (Docker's set unless task.toml
// changes it; never the agent's --caps), with a fresh copy of the task's tests at /tests and an empty
// /logs/verifier (prepareVerifierRootfs), logging to verifier-NAME.log;
// traced (verifier-NAME-events.jsonl) from its first exec, like the
// agent, so that what it loads is known.
func (r *runner) runVerifier(ctx context.Context, name string, argv []string) (env.RunResult, error) {
	t := r.Options.Task
	timeout := runbox.Seconds(t.Config.Verifier.TimeoutSec, defaultTimeout)
	if err := r.prepareVerifierRootfs(); err != nil {
		return env.RunResult{}, fmt.Errorf("%s verifier: %w", name, err)
	}
	cfg := env.TaskRunConfig(t, r.Image)
	dir := cfg.Cwd
	if dir == "" {
		dir = "/"
	}
	caps := t.Config.Environment.Capabilities()
	cfg.AddCapabilities = caps
	r.VerifierNet.Apply(r.Box, &cfg)
	logs, err := r.verifierLogs(name)
	if err != nil {
		return env.RunResult{}, fmt.Errorf("%s verifier: %w", name, err)
	}
	cfg.Binds = append(cfg.Binds, env.Bind{Source: logs, Destination: "/" + verifierLogDir})
	if r.NetNS == "" && !cfg.AllowInternet && r.kept != nil {
		// Without a namespace of the run's, the agent's container has
		// its own: the verifier joins it, to reach what the agent left
		// listening there (as in one container).
		cfg.NetNSPath = fmt.Sprintf("/proc/%d/ns/net", r.kept.Pid())
	}
	confinement, err := sandbox.NewConfinement(sandbox.CloseInheritedFDs(), sandbox.Capabilities(caps...))
	if err != nil {
		return env.RunResult{}, fmt.Errorf("%s verifier: %w", name, err)
	}
	spec := confinement.Confine(sandbox.Command{Path: argv[0], Args: argv, Env: env.MergeEnv(env.MergeEnv(cfg.Env, mapEnv(t.Config.Verifier.Env)), r.VerifierNet.Env), Dir: dir})
	log, err := r.CappedLog(runapi.VerifierLogFile(name), name+" verifier log", r.LogLimit(), os.O_TRUNC)
	if err != nil {
		return env.RunResult{}, err
	}
	defer r.CloseLog(log)
	var rec *audit.Recording
	var track func(context.Context, int) error
	if r.Options.Tracer != nil {
		track = func(ctx context.Context, pid int) error {
			var err error
			rec, err = r.startVerifierTrace(ctx, name, pid)
			return err
		}
	}
	g := r.RunGated(ctx, runbox.Gated{Name: "verify-" + name, Config: cfg, Launch: spec,
		Stdio: env.Stdio{Stdout: log, Stderr: log}, Timeout: timeout, Track: track})
	r.finishVerifierTrace(name, rec)
	switch {
	case g.StartErr != nil && !g.StartTimedOut:
		return g.RunResult, fmt.Errorf("%s verifier: %w", name, g.StartErr)
	case g.WaitErr != nil:
		return g.RunResult, fmt.Errorf("%s verifier: %w", name, g.WaitErr)
	case g.TimedOut:
		return g.RunResult, fmt.Errorf("%s verifier timed out after %v", name, timeout)
	}
	return g.RunResult, nil
}

// startVerifierTrace follows verifier name's container init from its
// exec on in a trace session of its own, judging what it consumes
// against what the agent left (tamperJudge).
func (r *runner) startVerifierTrace(ctx context.Context, name string, pid int) (*audit.Recording, error) {
	root, err := policy.NewRoot(r.Rootfs.Path)
	if err != nil {
		return nil, err
	}
	var note func(*trace.Event)
	if j := r.tamper; j != nil {
		j.recheck()
		note = func(ev *trace.Event) { j.observe(name, ev) }
	}
	return r.TraceContainer(ctx, pid, runapi.VerifierEventsFile(name), nil, root, note)
}

// finishVerifierTrace ends a verifier's recording and records how
// complete it was: a verifier not traced completely could have consumed
// a planted file unseen.
func (r *runner) finishVerifierTrace(name string, rec *audit.Recording) {
	vt := runapi.VerifierTrace{Verifier: name}
	defer func() { r.res.Verifiers = append(r.res.Verifiers, vt) }()
	if rec == nil {
		vt.Error = "not traced"
		if r.Options.Tracer != nil {
			vt.Error = "its trace did not start"
		}
		return
	}
	sum, err := rec.Close()
	vt.Events, vt.LostEvents = sum.Events, sum.Lost+rec.Dropped()
	vt.Traced = err == nil && vt.LostEvents == 0
	if err != nil {
		vt.Error = err.Error()
	}
	if !vt.Traced {
		r.Log.Warn("verifier trace incomplete", zap.String("verifier", name), zap.Error(err), zap.Uint64("lost", vt.LostEvents))
	}
}

// noteAgentWrites lists the files the agent left (identity and content),
// from the run's upper layer and its volumes, before the harness adds
// the tests.
func (r *runner) noteAgentWrites() {
	root, err := policy.NewRoot(r.Rootfs.Path)
	if err != nil {
		r.Log.Warn("files the agent wrote", zap.Error(err))
		return
	}
	written, err := agentWrittenFiles(r.Rootfs.Upper(), r.Rootfs.Lower, root, r.AgentStart)
	if err != nil {
		r.Log.Warn("files the agent wrote", zap.Error(err))
		return
	}
	r.noteVolumeWrites(written, root)
	var evidence []policy.Pattern
	if sens := r.Options.Task.Spec.Sensitive; sens != nil {
		evidence = sens.Get(policy.Write)
	}
	sem := r.Options.Semantics
	r.tamper = newTamperJudge(written, root, newExpectedOutputs(r.Options.Task.Spec.Required.Get(policy.Write), root, sem),
		newExpectedOutputs(evidence, root, sem))
	if r.kept != nil {
		r.tamper.left = r.left
	}
}

// judgeVerifiers records whether the verifiers consumed a file the agent
// left that the task did not ask for.
func (r *runner) judgeVerifiers() {
	traced := r.tamper != nil && !r.tamper.agent.truncated && len(r.res.Verifiers) > 0
	for _, v := range r.res.Verifiers {
		traced = traced && v.Traced
	}
	r.res.VerifiersTraced = traced
	if r.tamper != nil {
		r.res.VerifierTampered, r.res.VerifierTamperedOmitted = r.tamper.result()
	}
}

func mapEnv(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	return out
}

// verifierLogs makes verifier name's own /logs/verifier afresh in the
// run directory (runapi.VerifierLogsDir) and returns it: it is bind
// mounted into the verifier's container alone, so the reward read from
// it was written by the verifier's tree (what the agent left running
// sees the rootfs's /logs/verifier, never this one).
func (r *runner) verifierLogs(name string) (string, error) {
	top := filepath.Join(r.Options.Dir, runapi.VerifierLogsDir(name))
	if err := os.RemoveAll(top); err != nil {
		return "", err
	}
	dir := filepath.Join(top, filepath.FromSlash(verifierLogDir))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return dir, nil
}
