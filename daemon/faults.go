package daemon

import (
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/authbench/authbench/runapi"
	"go.uber.org/zap"
)

// QuotaError refuses a run of a caller that already has its quota of
// active runs (HTTP 429, like ErrBusy).
type QuotaError struct {
	UID    uint32
	Active int
	Quota  int
}

func (e *QuotaError) Error() string {
	return fmt.Sprintf("uid %d already has %d active runs (queued or running): the per-uid quota is %d; try again later",
		e.UID, e.Active, e.Quota)
}

// Unwrap makes a QuotaError an ErrBusy.
func (e *QuotaError) Unwrap() error { return ErrBusy }

// checkQuota refuses a new run of a non-root caller uid that has
// MaxActivePerUID active runs. m.mu is held.
func (m *Manager) checkQuota(uid uint32) error {
	if uid == 0 {
		return nil
	}
	n := 0
	for _, ar := range m.active {
		if ar.rec.CallerUID == uid { // never changes: no lock needed
			n++
		}
	}
	if n >= m.cfg.MaxActivePerUID {
		return &QuotaError{UID: uid, Active: n, Quota: m.cfg.MaxActivePerUID}
	}
	return nil
}

// stateFault is a failure to store a run's record or output in the state
// directory: the run fails with it.
type stateFault struct{ err error }

func (e *stateFault) Error() string {
	if errors.Is(e.err, syscall.ENOSPC) || errors.Is(e.err, syscall.EDQUOT) {
		return "state disk full: " + e.err.Error()
	}
	return "state disk: " + e.err.Error()
}

func (e *stateFault) Unwrap() error { return e.err }

// fault fails run ar with a state-disk error: the first one is kept as
// the run's error, and its tree is killed.
func (m *Manager) fault(ar *activeRun, err error) {
	ar.mu.Lock()
	first := ar.fault == nil
	if first {
		ar.fault = &stateFault{err: err}
	}
	f := ar.fault
	ar.mu.Unlock()
	if first {
		m.log.Error("run failed: cannot store it", zap.String("run", ar.rec.ID), zap.Error(err))
		ar.cancel(f)
	}
}

// faulted returns the fault of ar, if any.
func (ar *activeRun) faulted() error {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	if ar.fault == nil {
		return nil
	}
	return ar.fault
}

// unsavedRetry is how often records that could not be saved are retried.
const unsavedRetry = 2 * time.Second

// keepUnsaved keeps the record of an ended run that could not be saved:
// it stays the answer to API reads, and saving it is retried.
func (m *Manager) keepUnsaved(r *runapi.Run) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.unsaved[r.ID] = r
	if !m.retrying {
		m.retrying = true
		go m.retryUnsaved()
	}
}

// retryUnsaved saves the unsaved records until none is left.
func (m *Manager) retryUnsaved() {
	for {
		time.Sleep(unsavedRetry)
		if m.saveUnsaved() == 0 {
			return
		}
	}
}

// saveUnsaved tries to save every unsaved record once and returns how
// many are left; when none is, the retry loop ends.
func (m *Manager) saveUnsaved() int {
	m.mu.Lock()
	runs := make([]*runapi.Run, 0, len(m.unsaved))
	for _, r := range m.unsaved {
		runs = append(runs, r)
	}
	m.mu.Unlock()
	for _, r := range runs {
		if err := m.store.Save(r); err != nil {
			continue
		}
		m.log.Info("saved a run record that could not be saved before", zap.String("run", r.ID))
		m.mu.Lock()
		delete(m.unsaved, r.ID)
		m.mu.Unlock()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	left := len(m.unsaved)
	if left == 0 {
		m.retrying = false
	}
	return left
}

// unsavedRun returns a copy of the unsaved record of run id, if any.
func (m *Manager) unsavedRun(id string) *runapi.Run { return m.recordCopy(m.unsaved, id) }
