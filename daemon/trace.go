package daemon

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"go.uber.org/zap"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
)

// startTrace tracks pid (waiting at its gate; its own start-up is left
// out) and records its tree into the run's event log.
func (m *Manager) startTrace(id string, pid int, plan *policy.Plan, root *policy.Root) (*audit.Recording, error) {
	sess, err := m.cfg.Tracer.TrackExec(pid)
	if err != nil {
		return nil, fmt.Errorf("trace run: %w", err)
	}
	return audit.RecordWith(sess, m.store.RunFile(id, eventsFile), audit.NewInRoot(plan, root), nil,
		audit.RecordOptions{MaxBytes: m.cfg.MaxOutputBytes})
}

// finishTrace ends the recording after the tree has exited and records
// counts, denials, loader executions and code mapped without an
// execute right.
func (m *Manager) finishTrace(ar *activeRun, rec *audit.Recording) {
	if rec == nil {
		return
	}
	sum, err := rec.Close()
	if err != nil {
		m.log.Error("trace of run incomplete", zap.String("run", ar.rec.ID), zap.Error(err))
		if isStorageError(err) {
			m.fault(ar, err)
		}
	}
	a := rec.Auditor
	m.amend(ar, func(r *runapi.Run) { // saved with the end
		r.Events, r.LostEvents = sum.Events, sum.Lost+rec.Dropped()
		r.Denials, r.DeniedDropped, r.LoaderExecs = a.Denials(), a.Dropped(), a.LoaderExecs()
		r.MmapExecs = a.MmapExecs()
		if err != nil {
			r.TraceIncomplete = true
			if r.Error == "" {
				r.Error = err.Error()
			}
		}
	})
}

// isStorageError reports whether err is a failure of the disk a file is
// written to.
func isStorageError(err error) bool {
	for _, e := range []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT, syscall.EIO, syscall.EROFS} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// countStoredEvents counts the complete event lines of an event log (not
// its truncation or summary lines), e.g. of a run whose recorder died.
func countStoredEvents(path string) (uint64, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var n uint64
	br := bufio.NewReaderSize(f, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer: count it at its end.
			for err == bufio.ErrBufferFull {
				_, err = br.ReadSlice('\n')
			}
			if err == nil {
				n++
			}
		} else if err == nil && !bytes.HasPrefix(line, []byte(`{"op":"summary"`)) && !bytes.HasPrefix(line, []byte(`{"op":"truncated"`)) {
			n++
		}
		if err == io.EOF {
			return n, nil // a last line without its newline was cut short
		}
		if err != nil {
			return n, err
		}
	}
}
