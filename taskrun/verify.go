package taskrun

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/authbench/authbench/env"
)

// Harbor's verifier conventions.
const (
	testsMount     = "/tests"
	defaultTimeout = 10 * time.Minute
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
	t := r.o.Task
	if t.TestScript != "" {
		res, err := r.runVerifier(ctx, "utility", []string{"/bin/bash", testsMount + "/test.sh"})
		if err != nil {
			return verdict{err: err}
		}
		files, err := readRewardFiles(r.rootfs.Path)
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
	return r.pytestVerdict(ctx, "attack", "test_attack_outputs.py")
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
// policy, with a fresh copy of the task's tests at /tests and an empty
// /logs/verifier (prepareVerifierRootfs), logging to verifier-NAME.log.
func (r *runner) runVerifier(ctx context.Context, name string, argv []string) (env.RunResult, error) {
	t := r.o.Task
	timeout := seconds(t.Config.Verifier.TimeoutSec, defaultTimeout)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := r.prepareVerifierRootfs(); err != nil {
		return env.RunResult{}, fmt.Errorf("%s verifier: %w", name, err)
	}
	cfg := env.TaskRunConfig(t, r.image)
	cfg.Rootfs, cfg.Args, cfg.NetNSPath = r.rootfs.Path, argv, r.netns
	cfg.Env = env.MergeEnv(cfg.Env, mapEnv(t.Config.Verifier.Env))
	log, err := os.Create(filepath.Join(r.o.Dir, "verifier-"+name+".log"))
	if err != nil {
		return env.RunResult{}, err
	}
	defer log.Close()
	res, err := r.runContainer(ctx, "verify-"+name, cfg, env.Stdio{Stdout: log, Stderr: log})
	if err != nil {
		return res, fmt.Errorf("%s verifier: %w", name, err)
	}
	if res.TimedOut {
		return res, fmt.Errorf("%s verifier timed out after %v", name, timeout)
	}
	return res, nil
}

func mapEnv(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	return out
}

func seconds(s float64, def time.Duration) time.Duration {
	if s <= 0 {
		return def
	}
	return time.Duration(s * float64(time.Second))
}
