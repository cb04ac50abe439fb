package daemon

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/authbench/authbench/daemon/work"
	"github.com/authbench/authbench/internal/capped"
	"github.com/authbench/authbench/runapi"
)

// buildKind is an image build (runapi.BuildRequest, package env behind
// Config.Work): a base image, or a task's image exported to a rootfs
// directory in the daemon's image store.
type buildKind struct{}

// validate checks an image build request: a base build or a task's (a
// caller that is not root may only build a task of a trusted task root,
// with the default builder and mirror).
func (buildKind) validate(rec *runapi.RunRequest, c checkEnv) (kindState, error) {
	p := &buildPrepared{recorded: recorded{rec}}
	return p, p.check(c)
}

// check checks the build and resolves its defaults into p.
func (p *buildPrepared) check(c checkEnv) error {
	if err := c.needWork("build"); err != nil {
		return err
	}
	br := *p.req.Build
	p.req.Build = &br
	switch {
	case br.Dir != "" && !filepath.IsAbs(br.Dir):
		return badField("build.dir", "must be an absolute path, got %q", br.Dir)
	case br.Dir != "" && br.Family != "":
		return badField("build.family", "a task build takes its bases from its Dockerfile")
	}
	w, peer, trusted := c.work, c.peer, c.trusted
	if err := w.CheckBuilder(br.Builder); err != nil {
		return badField("build.builder", "%v", err)
	}
	if br.Family != "" {
		if err := w.CheckFamily(br.Family, br.Mirror); err != nil {
			return badField("build.family", "%v", err)
		}
	}
	if peer.UID != 0 {
		switch {
		case br.Dir == "":
			return forbidden(RuleOwnIdentity, "only root may build a base image (task builds make the bases they need)")
		case br.Builder != "" || br.Mirror != "":
			return forbidden(RuleOwnIdentity, "only root may choose the builder or the mirror")
		}
		if ferr := checkTrustedTaskDir(br.Dir, trusted); ferr != nil {
			return ferr
		}
	}
	if br.Dir != "" {
		t, err := w.LoadTask(br.Dir)
		if err != nil {
			return badField("build.dir", "%v", err)
		}
		p.task = t
	}
	return nil
}

// execute builds a base or a task image in the daemon's image store (or
// finds it up to date), logging the builder's output to the run's build
// log, and records the image. It succeeds (exit code 0) when the image is
// there; a task whose input cannot be built (a FROM nothing resolves, a
// heredoc the builder cannot run) is recorded as such.
func (buildKind) execute(ctx context.Context, m *Manager, ar *activeRun) outcome {
	m.setRunning(ar, 0)
	stop := m.notifyWhileRunning(ar)
	defer stop()
	logFile, err := os.OpenFile(filepath.Join(m.store.RunDir(ar.rec.ID), runapi.FileBuildLog), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return outcome{startErr: err}
	}
	log := capped.NewWriter(logFile, "build log", m.cfg.MaxOutputBytes, nil)
	defer log.Close()
	res, err := m.cfg.Work.Build(ctx, work.BuildJob{Request: *ar.prep.req.Build, Task: stateOf[*buildPrepared](ar).task, Log: log})
	m.amend(ar, func(r *runapi.Run) { r.BuildResult = res }) // saved with the end
	if err != nil {
		return outcome{startErr: err, killed: ctx.Err() != nil}
	}
	return outcome{killed: ctx.Err() != nil}
}

// defaultTimeout: a build takes its time.
func (buildKind) defaultTimeout(time.Duration) time.Duration { return taskTimeout }

// signalable: the builder is the daemon's own tool, not a tree of the
// caller's.
func (buildKind) signalable() bool { return false }

// traced: a build is not.
func (buildKind) traced(*runapi.RunRequest) bool { return false }

// usesRootfs: a build makes an image, not a run's rootfs.
func (buildKind) usesRootfs() bool { return false }

// artifacts: the builder's log.
func (buildKind) artifacts() []runapi.Artifact { return runapi.BuildArtifacts }
