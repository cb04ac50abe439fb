package daemon

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/authbench/authbench/runapi"
)

// TestEveryKindHasAType: every member of the request union has its
// runKind, and the daemon knows no kind the union lacks.
func TestEveryKindHasAType(t *testing.T) {
	kinds := runapi.Kinds()
	if len(runKinds) != len(kinds) {
		t.Errorf("the daemon has %d kinds, the union %d", len(runKinds), len(kinds))
	}
	for _, k := range kinds {
		if _, ok := runKinds[k]; !ok {
			t.Errorf("kind %s has no runKind", k)
		}
	}
}

// kindRequests is one valid request of every kind, on task (a task
// directory), as a root caller may send it.
func kindRequests(task string) map[runapi.Kind]runapi.RunRequest {
	return map[runapi.Kind]runapi.RunRequest{
		runapi.KindExec:     {Exec: &runapi.ExecRequest{Command: []string{"/bin/true"}, UID: uid(65534), GID: uid(65534)}},
		runapi.KindTask:     {Task: &runapi.TaskRequest{Dir: task, PolicySource: runapi.SourceSpec, Agent: runapi.AgentOracle}},
		runapi.KindGenerate: {Generate: &runapi.GenerateRequest{Dir: task, Generator: "heuristic"}},
		runapi.KindBuild:    {Build: &runapi.BuildRequest{Dir: task}},
	}
}

// TestTimeoutCheckedForEveryKind: the common timeout_s is bounded the
// same way whatever the kind (it applies to every kind), also for a
// request that does not come through the JSON decoder (Local); one in
// range is accepted for every kind.
func TestTimeoutCheckedForEveryKind(t *testing.T) {
	task, err := filepath.Abs(fixtureTask)
	if err != nil {
		t.Fatal(err)
	}
	root := Peer{UID: 0, GID: 0, PID: 1}
	for kind, req := range kindRequests(task) {
		for _, timeout := range []float64{-1, runapi.MaxTimeoutSeconds + 1} {
			bad := req
			bad.TimeoutSeconds = timeout
			_, err := validate(&bad, root, nil, testWork)
			var re *RequestError
			if !errors.As(err, &re) || re.Field != "timeout_s" {
				t.Errorf("%s with timeout_s %v: %v, want a bad request naming timeout_s", kind, timeout, err)
			}
		}
		ok := req
		ok.TimeoutSeconds = 30
		p, err := validate(&ok, root, nil, testWork)
		if err != nil {
			t.Fatalf("%s with timeout_s 30: %v", kind, err)
		}
		if p.kind != runKinds[kind] {
			t.Errorf("%s validated as %T", kind, p.kind)
		}
	}
}

// TestValidateCopiesTheMember: what validate records as applied (the
// semantics, a redacted model) changes the run's copy of the member, never
// the caller's request.
func TestValidateCopiesTheMember(t *testing.T) {
	task, err := filepath.Abs(fixtureTask)
	if err != nil {
		t.Fatal(err)
	}
	reqs := kindRequests(task)
	req := reqs[runapi.KindTask]
	p, err := validate(&req, Peer{PID: 1}, nil, testWork)
	if err != nil {
		t.Fatal(err)
	}
	if req.Task.Semantics != "" || p.req.Task.Semantics == "" || p.req.Task == req.Task {
		t.Errorf("caller's task semantics %q, recorded %q (same member: %v)", req.Task.Semantics, p.req.Task.Semantics, p.req.Task == req.Task)
	}
	ex := runapi.RunRequest{Exec: &runapi.ExecRequest{Command: []string{"/bin/true"}, Policy: policyJSON("/tmp"), UID: uid(65534), GID: uid(65534)}}
	p, err = validate(&ex, Peer{PID: 1}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ex.Exec.Semantics != "" || p.req.Exec.Semantics == "" {
		t.Errorf("caller's exec semantics %q, recorded %q", ex.Exec.Semantics, p.req.Exec.Semantics)
	}
}

// TestKindsLifecycle: only a command's tree takes forwarded signals; a
// command's default time is the daemon's, every other kind's the bound
// on every run (its own timeouts apply); task runs and generations are
// traced and leave a rootfs to clean up, a build neither.
func TestKindsLifecycle(t *testing.T) {
	const commandDefault = 42 * time.Second
	for _, c := range []struct {
		kind                          runapi.Kind
		signalable, traced, usesRootf bool
		timeout                       time.Duration
	}{
		{runapi.KindExec, true, false, false, commandDefault},
		{runapi.KindTask, false, true, true, taskTimeout},
		{runapi.KindGenerate, false, true, true, taskTimeout},
		{runapi.KindBuild, false, false, false, taskTimeout},
	} {
		k := runKinds[c.kind]
		req := kindRequests("/t")[c.kind]
		if k.signalable() != c.signalable || k.traced(&req) != c.traced || k.usesRootfs() != c.usesRootf ||
			k.defaultTimeout(commandDefault) != c.timeout {
			t.Errorf("%s: signalable %v traced %v rootfs %v timeout %v; want %+v", c.kind,
				k.signalable(), k.traced(&req), k.usesRootfs(), k.defaultTimeout(commandDefault), c)
		}
	}
	traced := runapi.RunRequest{Exec: &runapi.ExecRequest{Command: []string{"x"}, Trace: true}}
	if !runKinds[runapi.KindExec].traced(&traced) {
		t.Error("a traced command is not traced")
	}
}

// TestCommandRunMakesOnlyItsArtifacts: every file a traced command run
// leaves in its directory is one its kind's artifact table names, and
// each is served under its API name.
func TestCommandRunMakesOnlyItsArtifacts(t *testing.T) {
	requireRoot(t)
	d := startTestDaemon(t, Config{Self: testBinary, Tracer: testTracer(t)}, "")
	run := submitAndWait(t, d.client, &runapi.RunRequest{Exec: &runapi.ExecRequest{
		Command: []string{"sh", "-c", "cat /etc/hostname; echo err >&2"}, Trace: true, UID: uid(65534), GID: uid(65534)}})
	if run.State != runapi.StateSucceeded {
		t.Fatalf("run %s: %s", run.State, run.Error)
	}
	entries, err := os.ReadDir(d.m.store.RunDir(run.ID))
	if err != nil {
		t.Fatal(err)
	}
	arts := runKinds[runapi.KindExec].artifacts()
	var files []string
	for _, a := range arts {
		files = append(files, a.File)
	}
	for _, e := range entries {
		if e.Name() == recordFile {
			continue // the record itself
		}
		if !slices.Contains(files, e.Name()) {
			t.Errorf("command run made %s, which its artifacts do not name (%v)", e.Name(), files)
		}
	}
	for _, a := range arts {
		if len(readLog(t, d.client, run.ID, a.API)) == 0 {
			t.Errorf("artifact %s (%s) is empty", a.API, a.File)
		}
	}
}
