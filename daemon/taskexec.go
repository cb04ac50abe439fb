package daemon

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"go.uber.org/zap"

	"github.com/authbench/authbench/daemon/work"
	"github.com/authbench/authbench/runapi"
)

// startTaskWork marks ar running and returns the daemon's part of the
// environment of a run on task (runc state, the run's directory and
// limits; the identity recorded once resolved), with the function that
// ends the run's notifications.
func (m *Manager) startTaskWork(ar *activeRun, task work.Task, baseMap map[string]string) (work.Env, func()) {
	m.setRunning(ar, 0)
	stop := m.notifyWhileRunning(ar)
	return work.Env{
		Task: task, Self: m.cfg.Self, BaseMap: baseMap, RuncRoot: m.runcRoot(), Dir: m.store.RunDir(ar.rec.ID), Log: m.log,
		MaxOutputBytes: m.cfg.MaxOutputBytes,
		OnIdentity: func(id runapi.Identity) {
			m.update(ar, func(r *runapi.Run) { r.UID, r.GID = uint32(id.UID), uint32(id.GID) })
		},
	}, stop
}

// runcRoot holds the runc state of this manager's containers, under the
// state directory: containers left by an earlier daemon on the same
// state directory are found there (DeleteStaleContainers).
func (m *Manager) runcRoot() string { return filepath.Join(m.cfg.StateDir, "runc") }

// errNoTaskWork refuses a task run, generation or build in a Manager
// without Config.Work (one embedded for exec alone).
var errNoTaskWork = errors.New("this daemon runs commands only: task runs, generations and image builds need the full authbench")

// DeleteStaleContainers removes the containers that a daemon which died
// (even by SIGKILL) left running: runc is not their parent, so they do
// not die with it. Call it at start, before any run.
func (m *Manager) DeleteStaleContainers() error {
	root := m.runcRoot()
	entries, err := os.ReadDir(root)
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
		if m.cfg.Work == nil {
			errs = append(errs, fmt.Errorf("container %s left by an earlier daemon: %w", e.Name(), errNoTaskWork))
			continue
		}
		m.log.Warn("deleting a container left by an earlier daemon", zap.String("container", e.Name()))
		errs = append(errs, m.cfg.Work.DeleteContainer(root, e.Name()))
	}
	return errors.Join(errs...)
}
