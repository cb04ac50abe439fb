package daemon

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/authbench/authbench/runapi"
)

// Names of the files kept for each run under <state>/runs/<id>/.
const (
	recordFile = "run.json"
	eventsFile = runapi.FileEvents
	stdoutFile = runapi.FileStdout
	stderrFile = runapi.FileStderr
)

// Store keeps run records as files: <dir>/runs/<id>/run.json, written
// atomically (temp file + rename), beside the run's event log and output.
type Store struct {
	dir string
}

// OpenStore creates (if needed) and opens the state directory dir.
func OpenStore(dir string) (*Store, error) {
	if err := os.MkdirAll(filepath.Join(dir, "runs"), 0o750); err != nil {
		return nil, fmt.Errorf("open state dir %s: %w", dir, err)
	}
	return &Store{dir: dir}, nil
}

// RunDir returns the directory of run id.
func (s *Store) RunDir(id string) string { return filepath.Join(s.dir, "runs", id) }

// RunFile returns the path of one of a run's files.
func (s *Store) RunFile(id, name string) string { return filepath.Join(s.RunDir(id), name) }

// Create makes the directory of a new run and writes its first record;
// when that fails, nothing of the run is left.
func (s *Store) Create(r *runapi.Run) error {
	if err := s.CreateDir(r.ID); err != nil {
		return err
	}
	if err := s.Save(r); err != nil {
		return errors.Join(err, os.RemoveAll(s.RunDir(r.ID)))
	}
	return nil
}

// CreateDir makes the directory of a new run, without a record.
func (s *Store) CreateDir(id string) error {
	if err := os.Mkdir(s.RunDir(id), 0o750); err != nil {
		return fmt.Errorf("create run %s: %w", id, err)
	}
	return nil
}

// Save writes the record of r atomically (temporary file and rename).
// The end of a task run, a generation or a build (its result) is also
// synced to disk before the rename, so that it survives a crash of the
// machine (syncedEnd). Nothing else is synced: a daemon that dies loses
// no written record (the kernel keeps it), and a command's end that a
// crash of the machine loses is found, at the next start, in its last
// synced-or-not state and recorded as aborted (RecoverStale), as an
// intermediate state always was.
func (s *Store) Save(r *runapi.Run) error {
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode run %s: %w", r.ID, err)
	}
	final := s.RunFile(r.ID, recordFile)
	tmp, err := os.CreateTemp(s.RunDir(r.ID), ".run-*.json")
	if err != nil {
		return fmt.Errorf("save run %s: %w", r.ID, err)
	}
	_, werr := tmp.Write(append(data, '\n'))
	var serr error
	if syncedEnd(r) {
		serr = tmp.Sync()
	}
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("save run %s: %w", r.ID, err)
	}
	if err := os.Rename(tmp.Name(), final); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("save run %s: %w", r.ID, err)
	}
	return nil
}

// Load reads the record of run id.
func (s *Store) Load(id string) (*runapi.Run, error) {
	data, err := os.ReadFile(s.RunFile(id, recordFile))
	if err != nil {
		return nil, fmt.Errorf("load run %s: %w", id, err)
	}
	var r runapi.Run
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("load run %s: %w", id, err)
	}
	return &r, nil
}

// List returns every stored run, oldest first. Unreadable records are
// returned as errors beside the runs that could be read.
func (s *Store) List() ([]*runapi.Run, error) {
	entries, err := os.ReadDir(filepath.Join(s.dir, "runs"))
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	var runs []*runapi.Run
	var errs []error
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		r, err := s.Load(e.Name())
		if err != nil {
			errs = append(errs, err)
			continue
		}
		runs = append(runs, r)
	}
	sortRuns(runs)
	return runs, errors.Join(errs...)
}

// sortRuns orders runs oldest first (by id within the same second).
func sortRuns(runs []*runapi.Run) {
	sort.Slice(runs, func(i, j int) bool {
		if !runs[i].CreatedAt.Equal(runs[j].CreatedAt) {
			return runs[i].CreatedAt.Before(runs[j].CreatedAt)
		}
		return runs[i].ID < runs[j].ID
	})
}

// syncedEnd reports whether Save syncs r: the end of a run whose record
// holds a result (a task run, a generation, a build). A command's end
// (exec, trace) is not synced: its client reads the end from the daemon
// when it happens, and an fsync on every exec's way costs about as
// much as the rest of the record's saving.
func syncedEnd(r *runapi.Run) bool {
	q := r.Request
	return r.State.Terminal() && (q.Task != nil || q.Generate != nil || q.Build != nil)
}
