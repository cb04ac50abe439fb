package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"go.uber.org/zap"

	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/taskrun"
	"github.com/authbench/authbench/tasks"
)

// executeTask carries out a task run (package taskrun) in the run's
// directory and records its result. The run succeeds when the task run
// was carried out, whatever the verdicts; its exit code is the agent's.
func (m *Manager) executeTask(ctx context.Context, ar *activeRun) outcome {
	prep := ar.prep
	tr := prep.req.Task
	opts, stop, err := m.startTaskWork(ar, prep.task, tr.BaseMap)
	if err != nil {
		return outcome{startErr: err}
	}
	defer stop()
	opts.Source, opts.Policy, opts.Semantics, opts.Agent, opts.Model = tr.PolicySource, prep.policy, policy.Semantics(tr.Semantics), tr.Agent, prep.model
	opts.Capabilities, opts.AllowHosts = prep.caps, tr.AgentAllowHosts
	res, err := taskrun.Run(ctx, opts)
	if res != nil {
		m.update(ar, func(r *runapi.Run) {
			r.TaskResult = res
			r.Events, r.LostEvents, r.Denials = res.Events, res.LostEvents, res.Denials
			r.LandlockABI, r.UnenforcedRights = res.LandlockABI, res.UnenforcedRights
		})
	}
	if err != nil {
		return outcome{startErr: err, killed: ctx.Err() != nil}
	}
	// Ended early (cancel, deadline, daemon stopping) at any step, the
	// agent's or a verifier's: the run ends as its cause says.
	return outcome{exitCode: res.ExitCode, killed: ctx.Err() != nil}
}

// startTaskWork marks ar running and returns the daemon's part of the
// taskrun options of a run on task (image store, builder, runc, tracer, the
// run's directory and limits; the identity recorded once resolved), with
// the function that ends the run's notifications.
func (m *Manager) startTaskWork(ar *activeRun, task *tasks.Task, baseMap map[string]string) (taskrun.Options, func(), error) {
	images := env.Store{Dir: m.cfg.ImagesDir}
	if err := os.MkdirAll(images.Dir, 0o755); err != nil {
		return taskrun.Options{}, nil, err
	}
	m.setRunning(ar, 0)
	stop := m.notifyWhileRunning(ar)
	return taskrun.Options{
		Task: task, Self: m.cfg.Self, Images: images, Builder: env.NewBuilder(env.Buildah, images),
		BaseMap: env.BaseMap(baseMap), Registries: m.cfg.Registries, Runc: m.runc(), Tracer: m.cfg.Tracer, Dir: m.store.RunDir(ar.rec.ID), Log: m.log,
		MaxOutputBytes: m.cfg.MaxOutputBytes,
		OnIdentity: func(id runapi.Identity) {
			m.update(ar, func(r *runapi.Run) { r.UID, r.GID = uint32(id.UID), uint32(id.GID) })
		},
	}, stop, nil
}

// runc runs this manager's containers, with their state under the state
// directory: containers left by an earlier daemon on the same state
// directory are found there (DeleteStaleContainers).
func (m *Manager) runc() env.Runc {
	return env.Runc{Root: filepath.Join(m.cfg.StateDir, "runc")}
}

// DeleteStaleContainers removes the containers that a daemon which died
// (even by SIGKILL) left running: runc is not their parent, so they do
// not die with it. Call it at start, before any run.
func (m *Manager) DeleteStaleContainers() error {
	r := m.runc()
	entries, err := os.ReadDir(r.Root)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("stale containers: %w", err)
	}
	var errs []error
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		m.log.Warn("deleting a container left by an earlier daemon", zap.String("container", e.Name()))
		errs = append(errs, r.Delete(e.Name()))
	}
	return errors.Join(errs...)
}
