package daemon

import (
	"context"
	"os"
	"path/filepath"

	"github.com/authbench/authbench/daemon/work"
	"github.com/authbench/authbench/internal/capped"
	"github.com/authbench/authbench/runapi"
)

// validateBuild checks an image build request: a base build or a task's
// (a caller that is not root may only build a task of a trusted task
// root, with the default builder and mirror); the rest of the request
// must be empty.
func validateBuild(req *runapi.RunRequest, peer Peer, trusted []string, w work.Kinds) (*prepared, error) {
	p := &prepared{req: *req}
	br := req.Build
	switch {
	case req.Task != nil || req.Generate != nil:
		return nil, badField("build", "a request is one kind of run: a command, a task run, a generation or a build")
	case len(req.Command) > 0 || req.Dir != "" || len(req.Env) > 0:
		return nil, badField("command", "a build runs the builder on the task's Dockerfile")
	case req.UID != nil || req.GID != nil || req.AllowRoot || len(req.Capabilities) > 0:
		return nil, badField("uid", "a build runs as the daemon's builder")
	case !isNull(req.Seccomp) || req.NoSeccomp || !isNull(req.Policy) || !isNull(req.Baseline) || req.WaitTree:
		return nil, badField("policy", "a build is not confined by a policy")
	case br.Dir != "" && !filepath.IsAbs(br.Dir):
		return nil, badField("build.dir", "must be an absolute path, got %q", br.Dir)
	case br.Dir != "" && br.Family != "":
		return nil, badField("build.family", "a task build takes its bases from its Dockerfile")
	}
	if err := w.CheckBuilder(br.Builder); err != nil {
		return nil, badField("build.builder", "%v", err)
	}
	if br.Family != "" {
		if err := w.CheckFamily(br.Family, br.Mirror); err != nil {
			return nil, badField("build.family", "%v", err)
		}
	}
	if peer.UID != 0 {
		switch {
		case br.Dir == "":
			return nil, forbidden(RuleOwnIdentity, "only root may build a base image (task builds make the bases they need)")
		case br.Builder != "" || br.Mirror != "":
			return nil, forbidden(RuleOwnIdentity, "only root may choose the builder or the mirror")
		}
		if ferr := checkTrustedTaskDir(br.Dir, trusted); ferr != nil {
			return nil, ferr
		}
	}
	if br.Dir != "" {
		t, err := w.LoadTask(br.Dir)
		if err != nil {
			return nil, badField("build.dir", "%v", err)
		}
		p.build = t
	}
	return p, nil
}

// executeBuild builds a base or a task image in the daemon's image store
// (or finds it up to date), logging the builder's output to the run's
// build log, and records the image. It succeeds (exit code 0) when the
// image is there; a task whose input cannot be built (a FROM nothing
// resolves, a heredoc the builder cannot run) is recorded as such.
func (m *Manager) executeBuild(ctx context.Context, ar *activeRun) outcome {
	m.setRunning(ar, 0)
	stop := m.notifyWhileRunning(ar)
	defer stop()
	logFile, err := os.OpenFile(filepath.Join(m.store.RunDir(ar.rec.ID), runapi.FileBuildLog), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return outcome{startErr: err}
	}
	log := capped.NewWriter(logFile, "build log", m.cfg.MaxOutputBytes, nil)
	defer log.Close()
	res, err := m.cfg.Work.Build(ctx, work.BuildJob{Request: *ar.prep.req.Build, Task: ar.prep.build, Log: log})
	m.amend(ar, func(r *runapi.Run) { r.BuildResult = res }) // saved with the end
	if err != nil {
		return outcome{startErr: err, killed: ctx.Err() != nil}
	}
	return outcome{killed: ctx.Err() != nil}
}
