package daemon

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/sandbox"
)

// defaultPath is the PATH used to find a command when the request's
// environment has none.
const defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// outcome is how the tree of a run ended.
type outcome struct {
	exitCode int
	startErr error // the command never ran
	killed   bool  // the tree was killed (timeout, cancel, abort)
}

// execute runs the tree of ar until it exits or ctx ends, then kills
// whatever is left of it.
func (m *Manager) execute(ctx context.Context, ar *activeRun) outcome {
	id := ar.rec.ID
	prep := ar.prep
	root, err := policy.NewRoot("/")
	if err != nil {
		return outcome{startErr: err}
	}
	plan, err := m.compilePlan(prep, root)
	if err != nil {
		return outcome{startErr: err}
	}
	enf := sandbox.EnforcementFor(sandbox.KernelLandlockABI())
	m.update(ar, func(r *Run) {
		r.Plan, r.LandlockABI = plan, enf.KernelABI
		if plan != nil {
			r.UnenforcedRights = enf.Gaps()
		}
	})
	path, err := lookPath(prep.req.Command[0], prep.req.Env)
	if err != nil {
		return outcome{startErr: err}
	}
	output, err := m.openOutput(ar) // capped (Config.MaxOutputBytes)
	if err != nil {
		return outcome{startErr: err}
	}
	defer m.closeOutput(ar, output)
	stdout, stderr := output.files()

	spec := m.sandboxSpec(prep, path, plan)
	child, err := sandbox.StartWith(m.cfg.Self, spec, sandbox.LaunchOptions{OwnPIDNamespace: true}, nil, stdout, stderr)
	output.started()
	if err != nil {
		return outcome{startErr: err}
	}
	var rec *audit.Recording
	if prep.req.Trace {
		rec, err = m.startTrace(id, child.Pid(), plan, root)
		if err != nil {
			child.Kill()
			child.Wait()
			return outcome{startErr: err}
		}
	}
	m.setRunning(ar, child.Pid())
	stopTicker := m.notifyWhileRunning(ar)
	defer stopTicker()

	if err := child.Release(); err != nil {
		child.Wait()
		m.finishTrace(ar, rec)
		return outcome{startErr: err}
	}
	exited := make(chan waitResult, 1)
	go func() {
		code, err := child.Wait()
		exited <- waitResult{code, err}
	}()
	var res waitResult
	killed := false
	select {
	case res = <-exited:
	case <-ctx.Done():
		killed = true
		if err := child.KillTree(); err != nil {
			m.log.Error("kill run tree", zap.String("run", id), zap.Error(err))
		}
		select {
		case res = <-exited:
		case <-time.After(killGrace):
			m.log.Error("killed tree not reaped in time", zap.String("run", id))
			res = <-exited
		}
	}
	m.finishTrace(ar, rec)
	if res.err != nil {
		return outcome{startErr: res.err, killed: killed}
	}
	return outcome{exitCode: res.code, killed: killed}
}

type waitResult struct {
	code int
	err  error
}

// compilePlan turns the run's policy into a Landlock plan against root
// (the host's); nil when the run is unconstrained.
func (m *Manager) compilePlan(prep *prepared, root *policy.Root) (*policy.Plan, error) {
	if prep.policy == nil {
		return nil, nil
	}
	plan, err := policy.CompilePlan(prep.policy, prep.baseline, root)
	if err != nil {
		return nil, fmt.Errorf("compile policy: %w", err)
	}
	for _, w := range plan.LoudWarnings() {
		m.log.Warn("policy warning", zap.String("pattern", w.Pattern), zap.String("warning", w.Message))
	}
	return plan, nil
}

// lookPath resolves name the way a shell would, with the PATH of env.
func lookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		abs, err := filepath.Abs(name)
		if err != nil {
			return "", err
		}
		return abs, nil
	}
	pathVar := defaultPath
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathVar = v
		}
	}
	for _, dir := range filepath.SplitList(pathVar) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("command %q not found in PATH %s: %w", name, pathVar, exec.ErrNotFound)
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
func (m *Manager) sandboxSpec(prep *prepared, path string, plan *policy.Plan) sandbox.Spec {
	dir := prep.req.Dir
	if dir == "" {
		dir = "/"
	}
	uid, gid := int(prep.uid), int(prep.gid)
	spec := sandbox.Spec{
		Path: path, Args: prep.req.Command, Env: prep.req.Env, Dir: dir,
		AllowUnenforced: prep.req.AllowUnenforced, UID: &uid, GID: &gid,
	}
	if plan == nil && prep.seccomp == nil {
		spec.CloseFDs = true
		return spec // unconstrained: only the identity changes
	}
	return spec.Confined(plan, prep.seccomp)
}
