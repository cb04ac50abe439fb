// Package taskwork carries out the daemon's request kinds that need task
// environments: task runs (package taskrun), generations (package
// generate) and image builds (package env), behind the contract of
// package daemon/work. The full CLI gives one to the daemon it serves or
// embeds (daemon.Config.Work); the thin front does not link it.
package taskwork

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/authbench/authbench/daemon/work"
	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/env/imagemeta"
	"github.com/authbench/authbench/generate"
	"github.com/authbench/authbench/generate/genname"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/taskrun"
	"github.com/authbench/authbench/tasks"
	"github.com/authbench/authbench/tracer"
)

// Config configures a Work.
type Config struct {
	// ImagesDir keeps task images ("": env.DefaultImagesDir).
	ImagesDir string
	// Registries are pulled from for images that a run's image map does
	// not map (the config file's [env] registries).
	Registries []env.Registry
	// Tracer traces task runs and generations; nil runs them untraced.
	Tracer *tracer.Tracer
}

// Work implements work.Kinds.
type Work struct {
	cfg Config
}

var _ work.Kinds = (*Work)(nil)

// New returns the task work of a daemon.
func New(cfg Config) *Work {
	if cfg.ImagesDir == "" {
		cfg.ImagesDir = env.DefaultImagesDir
	}
	return &Work{cfg: cfg}
}

// task is a loaded task.
type task struct{ t *tasks.Task }

// PermissionSpec is the task's tests/permission_eval_spec.json.
func (t task) PermissionSpec() *policy.Spec { return t.t.Spec }

// unwrap returns the task of a work.Task made by LoadTask.
func unwrap(t work.Task) *tasks.Task {
	if t == nil {
		return nil
	}
	return t.(task).t
}

// LoadTask loads and checks the task in dir.
func (w *Work) LoadTask(dir string) (work.Task, error) {
	t, err := tasks.Load(dir)
	if err != nil {
		return nil, err
	}
	return task{t}, nil
}

// CheckAgent checks a task run's agent name (taskrun.CheckAgent).
func (w *Work) CheckAgent(t work.Task, agent string) error {
	return taskrun.CheckAgent(unwrap(t), agent)
}

// ParseGenerator checks a generator's name (genname.Parse).
func (w *Work) ParseGenerator(name string) (work.Generator, error) {
	g, err := genname.Parse(name)
	if err != nil {
		return work.Generator{}, err
	}
	return work.Generator{Model: g.Model, OpenAI: g.UsesModel()}, nil
}

// CheckBuilder checks an image builder's name ("": buildah).
func (w *Work) CheckBuilder(name string) error {
	_, err := imagemeta.ParseBuilderKind(builderName(name))
	return err
}

// CheckFamily checks a base family's name.
func (w *Work) CheckFamily(family, mirror string) error {
	_, err := buildBases(mirror).Config(family)
	return err
}

// images is the image store, created if missing.
func (w *Work) images() (env.Store, error) {
	images := env.Store{Dir: w.cfg.ImagesDir}
	if err := os.MkdirAll(images.Dir, 0o755); err != nil {
		return images, fmt.Errorf("image store: %w", err)
	}
	return images, nil
}

// runOptions are the taskrun options of a task run's or generation's
// environment.
func (w *Work) runOptions(e work.Env) (taskrun.Options, error) {
	images, err := w.images()
	if err != nil {
		return taskrun.Options{}, err
	}
	return taskrun.Options{
		Task: unwrap(e.Task), Self: e.Self, Images: images, Builder: env.NewBuilder(imagemeta.Buildah, images),
		BaseMap: env.BaseMap(e.BaseMap), Registries: w.cfg.Registries, Runc: env.Runc{Root: e.RuncRoot},
		Tracer: w.cfg.Tracer, Dir: e.Dir, Log: e.Log, MaxOutputBytes: e.MaxOutputBytes, OnIdentity: e.OnIdentity,
	}, nil
}

// RunTask carries out a task run (taskrun.Run).
func (w *Work) RunTask(ctx context.Context, j work.TaskJob) (*runapi.TaskResult, error) {
	opts, err := w.runOptions(j.Env)
	if err != nil {
		return nil, err
	}
	opts.Source, opts.Policy, opts.Semantics, opts.Agent, opts.Model = j.Source, j.Policy, j.Semantics, j.Agent, j.Model
	opts.Capabilities, opts.AllowHosts = j.Capabilities, j.AllowHosts
	opts.Requests, opts.RequestLimits = j.Requests, j.RequestLimits
	return taskrun.Run(ctx, opts)
}

// Generate carries out a generation (generate.Run).
func (w *Work) Generate(ctx context.Context, j work.GenerateJob) (*runapi.GenerationRecord, error) {
	opts, err := w.runOptions(j.Env)
	if err != nil {
		return nil, err
	}
	return generate.Run(ctx, generate.Options{Generator: j.Generator, Timeout: j.Timeout, Model: j.Model, Run: opts})
}

// CleanupRun removes what a task run left in dir (taskrun.Cleanup).
func (w *Work) CleanupRun(dir string) error { return taskrun.Cleanup(dir) }

// DeleteContainer deletes a container of the runc state in runcRoot.
func (w *Work) DeleteContainer(runcRoot, id string) error {
	return env.Runc{Root: runcRoot}.Delete(id)
}

// builderName is the builder a request names, buildah by default.
func builderName(name string) string {
	if name == "" {
		return string(imagemeta.Buildah)
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

// Build builds a base or a task image in the image store (or finds it
// up to date), logging the builder's output to j.Log. A task whose input
// cannot be built (a FROM nothing resolves, a heredoc the builder cannot
// run) is recorded as such (BuildResult.InputError).
func (w *Work) Build(ctx context.Context, j work.BuildJob) (*runapi.BuildResult, error) {
	res := &runapi.BuildResult{}
	images, err := w.images()
	if err != nil {
		return res, err
	}
	br := j.Request
	kind, err := imagemeta.ParseBuilderKind(builderName(br.Builder))
	if err != nil {
		return res, err
	}
	builder, bases := env.NewBuilder(kind, images), buildBases(br.Mirror)
	if j.Task == nil {
		return res, buildBase(ctx, images, builder, bases, br.Family, j.Log, res)
	}
	return res, buildTask(ctx, env.BuildOptions{Builder: builder, Bases: bases, BaseMap: env.BaseMap(br.BaseMap),
		Registries: w.cfg.Registries, BuildArgs: br.BuildArgs, Log: j.Log}, images, unwrap(j.Task), res)
}

// buildBase builds the base (family "": authbench-base) and imports it
// into the builder's storage.
func buildBase(ctx context.Context, images env.Store, builder env.Builder, bases env.Bases, family string, log io.Writer, res *runapi.BuildResult) error {
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
