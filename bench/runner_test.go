package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/runapi"
)

// fakeAPI carries out task runs without running anything: every run
// passes its verifiers, except that Submit fails for the runs failing
// names (task/agent) as many times as it says (-1: always).
type fakeAPI struct {
	// events is the size of each run's event log; logs are the other
	// files of every run, by API name (none when nil).
	events  int
	logs    map[string]string
	mu      sync.Mutex
	failing map[string]int
	submits map[string]int
	runs    map[string]*runapi.Run
}

func newFakeAPI(failing map[string]int) *fakeAPI {
	return &fakeAPI{failing: failing, submits: map[string]int{}, runs: map[string]*runapi.Run{}}
}

func (f *fakeAPI) Submit(_ context.Context, req *runapi.RunRequest) (*runapi.Run, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	name := filepath.Base(req.Task.Dir) + "/" + req.Task.Agent
	f.submits[name]++
	if n := f.failing[name]; n != 0 {
		f.failing[name] = n - 1
		return nil, fmt.Errorf("daemon: connection reset")
	}
	no := false
	res := &runapi.TaskResult{Task: filepath.Base(req.Task.Dir), Utility: true, PolicySource: req.Task.PolicySource,
		Agent: req.Task.Agent, Semantics: "published"}
	if strings.Contains(req.Task.Dir, "secret") {
		res.Attack = &no
	}
	run := &runapi.Run{ID: fmt.Sprintf("run-%d", len(f.runs)), State: "succeeded", TaskResult: res}
	f.runs[run.ID] = run
	return run, nil
}

func (f *fakeAPI) Wait(_ context.Context, id string) (*runapi.Run, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.runs[id], nil
}

func (f *fakeAPI) OpenLog(_ context.Context, id, log string, _ bool) (io.ReadCloser, error) {
	if log == "events" {
		return io.NopCloser(strings.NewReader(strings.Repeat("e", f.events))), nil
	}
	return io.NopCloser(strings.NewReader(f.logs[log])), nil
}

func (f *fakeAPI) Get(context.Context, string) (*runapi.Run, error) { return nil, errors.New("unused") }
func (f *fakeAPI) List(context.Context) ([]*runapi.Run, error)      { return nil, errors.New("unused") }
func (f *fakeAPI) Cancel(context.Context, string) (*runapi.Run, error) {
	return nil, errors.New("unused")
}

// TestRunRetriesThenRecordsDaemonErrors: a run the daemon fails once is
// retried and stored; one it always fails is stored as an error (not a
// failure) after two tries, and run again when the bench resumes.
func TestRunRetriesThenRecordsDaemonErrors(t *testing.T) {
	tasksDir := fixtureTasks(t, "hello-standard", "secret-sensitive")
	out := t.TempDir()
	cfg := Config{TasksDir: tasksDir, Sources: []Source{{Name: runapi.SourceSpec}}, Agent: "oracle", Trials: 1, Parallel: 2, Out: out}
	api := newFakeAPI(map[string]int{"hello-standard/oracle": 1, "secret-sensitive/shortcut": -1})
	sum, err := Run(context.Background(), cfg, Options{API: api})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Stats.NTrials != 3 || sum.Stats.NErrors != 1 || sum.Stats.NFailed != 0 {
		t.Fatalf("stats %+v", sum.Stats)
	}
	if api.submits["hello-standard/oracle"] != 2 || api.submits["secret-sensitive/shortcut"] != 2 || api.submits["secret-sensitive/oracle"] != 1 {
		t.Fatalf("submits %v", api.submits)
	}
	recs, err := LoadRecords(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		wantErr := r.Task == "secret-sensitive" && r.Agent == "shortcut"
		if (r.Error != "") != wantErr || wantErr && (!strings.Contains(r.Error, "connection reset") || r.Utility) {
			t.Errorf("%s: error %q", keyOf(&r), r.Error)
		}
		if wantErr && r.ErrorKind != runapi.ErrorDaemon {
			t.Errorf("%s: error kind %q, want %q", keyOf(&r), r.ErrorKind, runapi.ErrorDaemon)
		}
		if wantErr {
			data, err := os.ReadFile(filepath.Join(out, r.Dir, JobResultFile))
			if err != nil || !strings.Contains(string(data), `"exception_type": "daemon"`) {
				t.Errorf("%s: trial result.json %s (%v)", keyOf(&r), data, err)
			}
		}
	}
	// Resumed with a daemon that works: only the error run runs again.
	api2 := newFakeAPI(nil)
	sum, err = Run(context.Background(), cfg, Options{API: api2})
	if err != nil {
		t.Fatal(err)
	}
	if len(api2.submits) != 1 || api2.submits["secret-sensitive/shortcut"] != 1 || sum.Stats.NErrors != 0 || sum.Stats.NResumed != 2 {
		t.Fatalf("resume: submits %v stats %+v", api2.submits, sum.Stats)
	}
}

// TestRunKeepsTrajectoryAndNetwork: a trial directory keeps the agent's
// trajectory and the run's network attempts, where the viewer reads them.
func TestRunKeepsTrajectoryAndNetwork(t *testing.T) {
	tasksDir := fixtureTasks(t, "hello-standard")
	out := t.TempDir()
	cfg := Config{TasksDir: tasksDir, Sources: []Source{{Name: runapi.SourceSpec}}, Agent: "oracle", Trials: 1, Parallel: 1, Out: out}
	api := newFakeAPI(nil)
	api.logs = map[string]string{runapi.LogTrajectory: `{"schema_version":"ATIF-v1.4"}`, runapi.LogNetwork: `{"op":"connect"}` + "\n"}
	if _, err := Run(context.Background(), cfg, Options{API: api}); err != nil {
		t.Fatal(err)
	}
	recs, err := LoadRecords(out)
	if err != nil || len(recs) != 1 {
		t.Fatalf("records %v: %v", recs, err)
	}
	for name, want := range map[string]string{"agent/trajectory.json": api.logs[runapi.LogTrajectory], "authbench/network.jsonl": api.logs[runapi.LogNetwork]} {
		data, err := os.ReadFile(filepath.Join(out, recs[0].Dir, name))
		if err != nil || string(data) != want {
			t.Errorf("%s: %q (%v), want %q", name, data, err, want)
		}
	}
}

// TestRunStopsOnDiskFull: an out dir on a full disk stops the bench with
// ErrDiskFull naming the run; every run stored before is whole (its
// trial result is there) and the database reads back.
func TestRunStopsOnDiskFull(t *testing.T) {
	testenv.NeedRoot(t)
	tasksDir := fixtureTasks(t, "hello-standard")
	out := t.TempDir()
	err := syscall.Mount("tmpfs", out, "tmpfs", 0, "size=1m,mode=0700")
	testenv.NeedNoError(t, "tmpfs mount", err)
	t.Cleanup(func() { _ = syscall.Unmount(out, syscall.MNT_DETACH) })
	cfg := Config{TasksDir: tasksDir, Sources: []Source{{Name: runapi.SourceSpec}}, Agent: "oracle", Trials: 100, Parallel: 1, Out: out}
	api := newFakeAPI(nil)
	api.events = 64 << 10
	_, err = Run(context.Background(), cfg, Options{API: api})
	t.Log(err)
	if !errors.Is(err, ErrDiskFull) || !strings.Contains(err.Error(), "hello-standard/spec/oracle/") {
		t.Fatalf("bench on a full disk: %v", err)
	}
	recs, err := LoadRecords(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) == 0 || len(recs) >= 100 {
		t.Fatalf("%d runs stored", len(recs))
	}
	for _, r := range recs {
		if _, err := os.Stat(filepath.Join(out, r.Dir, JobResultFile)); err != nil {
			t.Errorf("stored run %s has no trial result: %v", keyOf(&r), err)
		}
	}
}
