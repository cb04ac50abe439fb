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
	"github.com/authbench/authbench/taskrun"
)

// executeTask carries out a task run (package taskrun) in the run's
// directory and records its result. The run succeeds when the task run
// was carried out, whatever the verdicts; its exit code is the agent's.
func (m *Manager) executeTask(ctx context.Context, ar *activeRun) outcome {
	prep := ar.prep
	tr := prep.req.Task
	images := env.Store{Dir: m.cfg.ImagesDir}
	if err := os.MkdirAll(images.Dir, 0o755); err != nil {
		return outcome{startErr: err}
	}
	m.setRunning(ar, 0)
	stopTicker := m.notifyWhileRunning(ar)
	defer stopTicker()
	res, err := taskrun.Run(ctx, taskrun.Options{
		Task: prep.task, Source: tr.PolicySource, Policy: prep.policy, Semantics: policy.Semantics(tr.Semantics), Agent: tr.Agent, Model: prep.model,
		Self: m.cfg.Self, Images: images, Builder: env.NewBuilder(env.Buildah, images),
		BaseMap: env.BaseMap(tr.BaseMap), Runc: m.runc(), Tracer: m.cfg.Tracer, Dir: m.store.RunDir(ar.rec.ID), Log: m.log,
		MaxOutputBytes: m.cfg.MaxOutputBytes,
		OnIdentity: func(id taskrun.Identity) {
			m.update(ar, func(r *Run) { r.UID, r.GID = uint32(id.UID), uint32(id.GID) })
		},
	})
	if res != nil {
		m.update(ar, func(r *Run) {
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
