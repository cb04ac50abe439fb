package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"

	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/internal/capped"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/taskrun"
	"github.com/authbench/authbench/tasks"
)

// validateBuild checks an image build request: a base build or a task's
// (a caller that is not root may only build a task of a trusted task
// root, with the default builder and mirror); the rest of the request
// must be empty.
func validateBuild(req *runapi.RunRequest, peer Peer, trusted []string) (*prepared, error) {
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
	if _, err := env.ParseBuilderKind(builderName(br.Builder)); err != nil {
		return nil, badField("build.builder", "%v", err)
	}
	if br.Family != "" {
		if _, err := buildBases(br.Mirror).Config(br.Family); err != nil {
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
		t, err := tasks.Load(br.Dir)
		if err != nil {
			return nil, badField("build.dir", "%v", err)
		}
		p.build = t
	}
	return p, nil
}

// builderName is the builder a request names, buildah by default.
func builderName(name string) string {
	if name == "" {
		return string(env.Buildah)
	}
	return name
}

// buildBases are the base images of a build with mirror ("": the
// machine's apt sources).
func buildBases(mirror string) env.Bases {
	base := env.DefaultBaseConfig()
	if mirror != "" {
		base.Mirror = mirror
	}
	return env.Bases{Default: base, Mirror: mirror}
}

// executeBuild builds a base or a task image in the daemon's image store
// (or finds it up to date), logging the builder's output to the run's
// build log, and records the image. It succeeds (exit code 0) when the
// image is there; a task whose input cannot be built (a FROM nothing
// resolves, a heredoc the builder cannot run) is recorded as such.
func (m *Manager) executeBuild(ctx context.Context, ar *activeRun) outcome {
	br := ar.prep.req.Build
	images := env.Store{Dir: m.cfg.ImagesDir}
	if err := os.MkdirAll(images.Dir, 0o755); err != nil {
		return outcome{startErr: err}
	}
	kind, _ := env.ParseBuilderKind(builderName(br.Builder))
	builder, bases := env.NewBuilder(kind, images), buildBases(br.Mirror)
	m.setRunning(ar, 0)
	stop := m.notifyWhileRunning(ar)
	defer stop()
	logFile, err := os.OpenFile(filepath.Join(m.store.RunDir(ar.rec.ID), runapi.FileBuildLog), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return outcome{startErr: err}
	}
	limit := m.cfg.MaxOutputBytes
	if limit <= 0 {
		limit = taskrun.DefaultMaxLogBytes
	}
	log := capped.NewWriter(logFile, "build log", limit, nil)
	defer log.Close()
	res := &runapi.BuildResult{}
	if ar.prep.build == nil {
		err = buildBase(ctx, images, builder, bases, br.Family, log, res)
	} else {
		err = buildTask(ctx, env.BuildOptions{Builder: builder, Bases: bases, BaseMap: env.BaseMap(br.BaseMap),
			Registries: m.cfg.Registries, BuildArgs: br.BuildArgs, Log: log}, images, ar.prep.build, res)
	}
	m.update(ar, func(r *runapi.Run) { r.BuildResult = res })
	if err != nil {
		return outcome{startErr: err, killed: ctx.Err() != nil}
	}
	return outcome{killed: ctx.Err() != nil}
}

// buildBase builds the base (family "": authbench-base) and imports it
// into the builder's storage.
func buildBase(ctx context.Context, images env.Store, builder env.Builder, bases env.Bases, family string, log *capped.Writer, res *runapi.BuildResult) error {
	base := bases.Default
	if family != "" {
		var err error
		if base, err = bases.Config(family); err != nil {
			return err
		}
	}
	img, built, err := env.BuildBase(ctx, images, base, log)
	if err != nil {
		return err
	}
	res.Key, res.Rootfs, res.Built, res.BuildSeconds, res.BuiltAt = base.Key(), img.Rootfs, built, img.BuildSeconds, img.BuiltAt
	if res.Image, err = json.Marshal(img); err != nil {
		return err
	}
	imported, err := env.ImportBase(ctx, images, builder, img, log)
	if err != nil {
		return err
	}
	res.Imported, res.Tag = imported, img.Config.Tag()
	return nil
}

// buildTask builds t's image with o, recording an input the builder
// cannot take in res.InputError.
func buildTask(ctx context.Context, o env.BuildOptions, images env.Store, t *tasks.Task, res *runapi.BuildResult) error {
	img, built, err := env.BuildTask(ctx, images, t, o)
	var ue *env.UnresolvedError
	var he *tasks.HeredocError
	if errors.As(err, &ue) || errors.As(err, &he) {
		res.InputError = err.Error()
	}
	if err != nil {
		return err
	}
	res.Rootfs, res.Built, res.BuildSeconds, res.BuiltAt = img.Rootfs, built, img.BuildSeconds, img.BuiltAt
	res.Image, err = json.Marshal(img)
	return err
}
