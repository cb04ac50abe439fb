package bench

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
)

// TestTraceSourceNeverRunsARefusedRecording: when the recorder refuses a
// task, each of the trace source's runs of it is an error of kind
// "recording" with the recorder's reason, nothing is submitted for them,
// and the recorder is asked once (on 4276286 the recorded spec was run
// as recorded, a stderr warning aside).
func TestTraceSourceNeverRunsARefusedRecording(t *testing.T) {
	tasksDir := fixtureTasks(t, "hello-standard")
	out := t.TempDir()
	cfg := Config{TasksDir: tasksDir, Sources: []Source{{Name: runapi.SourceTrace}, {Name: runapi.SourceUnconstrained}}, Agent: "oracle", Trials: 2, Parallel: 2, Out: out}
	api := newFakeAPI(nil)
	var calls atomic.Int32
	reason := "task hello-standard: the oracle is not deterministic: it passed 1 of 2 verifies"
	rec := func(context.Context, *tasks.Task) (*policy.Policy, error) {
		calls.Add(1)
		return nil, runapi.WithKind(runapi.ErrorRecording, errors.New("the recorder refused the task: "+reason))
	}
	sum, err := Run(context.Background(), cfg, Options{API: api, TraceRecorder: rec})
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 1 || api.submits["hello-standard/oracle"] != 2 {
		t.Fatalf("recorder called %d times, submits %v: want one recording and only the unconstrained runs", calls.Load(), api.submits)
	}
	if sum.Stats.NErrors != 2 {
		t.Errorf("stats %+v: want the 2 trace runs as errors", sum.Stats)
	}
	recs, err := LoadRecords(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Source != runapi.SourceTrace {
			continue
		}
		if r.ErrorKind != runapi.ErrorRecording || !strings.Contains(r.Error, reason) {
			t.Errorf("%s: error %q (%s), want the recorder's reason of kind recording", keyOf(&r), r.Error, r.ErrorKind)
		}
	}
}

// TestSpecSourceRefusesAnOverlappingSpec: a spec whose required entries
// overlap its sensitive ones is no policy for the spec source: its runs
// are errors naming the overlap, as spec check names it (on 4276286 they
// ran and reported an exposure under the spec).
func TestSpecSourceRefusesAnOverlappingSpec(t *testing.T) {
	tasksDir := fixtureTasks(t, "secret-sensitive")
	spec := tasksDir + "/secret-sensitive/tests/permission_eval_spec.json"
	overlapping(t, spec)
	out := t.TempDir()
	cfg := Config{TasksDir: tasksDir, Sources: []Source{{Name: runapi.SourceSpec}}, Agent: "oracle", Trials: 1, Parallel: 1, Out: out}
	api := newFakeAPI(nil)
	if _, err := Run(context.Background(), cfg, Options{API: api}); err != nil {
		t.Fatal(err)
	}
	recs, err := LoadRecords(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || len(api.submits) != 0 {
		t.Fatalf("%d records, submits %v: want the oracle's and the shortcut's run, neither submitted", len(recs), api.submits)
	}
	for _, r := range recs {
		if !strings.Contains(r.Error, `required_permissions.read[1]: "/app/config/deploy.key" overlaps sensitive_permissions.read[0]`) {
			t.Errorf("%s: error %q, want the overlap named", keyOf(&r), r.Error)
		}
	}
}

// overlapping adds the sensitive file to the required reads of the spec
// file at name.
func overlapping(t *testing.T, name string) {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(data), `"read": ["/app/data.csv"]`, `"read": ["/app/data.csv", "/app/config/deploy.key"]`, 1)
	if changed == string(data) {
		t.Fatal("fixture spec changed: cannot add the overlapping entry")
	}
	if err := os.WriteFile(name, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
}
