package daemon

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/authbench/authbench/runapi"
)

// TestKindArtifactsAreTheWireTables: each kind serves the table the
// client knows it by (runapi.ArtifactsOf), and the file Client.Wait
// follows is one of them.
func TestKindArtifactsAreTheWireTables(t *testing.T) {
	for _, kind := range runapi.Kinds() {
		arts := runKinds[kind].artifacts()
		if !reflect.DeepEqual(arts, runapi.ArtifactsOf(kind)) {
			t.Errorf("%s serves %v, the wire table is %v", kind, arts, runapi.ArtifactsOf(kind))
		}
		if !slices.ContainsFunc(arts, func(a runapi.Artifact) bool { return a.API == runapi.WaitLog(kind) }) {
			t.Errorf("%s: Client.Wait follows %q, not one of its files", kind, runapi.WaitLog(kind))
		}
	}
}

func apiNames(arts []runapi.Artifact) []string {
	out := make([]string, len(arts))
	for i, a := range arts {
		out[i] = a.API
	}
	return out
}

// plantRun records an ended run of req in d's store, with files (name →
// content) in its directory, as a daemon that ran it would have left it.
func plantRun(t *testing.T, d *testDaemon, id string, req runapi.RunRequest, files map[string]string) {
	t.Helper()
	now := time.Now().UTC()
	run := &runapi.Run{ID: id, State: runapi.StateSucceeded, Request: req, CreatedAt: now, EndedAt: &now}
	if err := d.m.store.Create(run); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		if err := os.WriteFile(d.m.store.RunFile(id, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// wantArtifactRefusal: err is the API's 404 for a name the kind does not
// make, naming exactly the kind's names.
func wantArtifactRefusal(t *testing.T, err error, kind runapi.Kind, name string) {
	t.Helper()
	var ae *runapi.APIError
	if !errors.As(err, &ae) || ae.Artifact() == nil {
		t.Fatalf("%s file %q: got %v, want a 404 naming the kind's files", kind, name, err)
	}
	if want := apiNames(runapi.ArtifactsOf(kind)); !reflect.DeepEqual(ae.Allowed, want) {
		t.Fatalf("%s file %q: allowed %v, want %v", kind, name, ae.Allowed, want)
	}
}

// TestLogEndpointServesOnlyTheKindsFiles: GET /v1/runs/{id}/{name}
// serves a run only the names of its own kind's artifact table; a path
// (`../`, absolute), a file name, the record, and another kind's file
// (present in the directory) are a 404 naming the kind's names, through
// the socket and embedded alike.
func TestLogEndpointServesOnlyTheKindsFiles(t *testing.T) {
	requireRoot(t)
	d := startTestDaemon(t, Config{Self: testBinary}, "")
	ctx := context.Background()
	const buildID, taskID = "20260101T000000-00000000000000b1", "20260101T000000-00000000000000a1"
	everything := map[string]string{runapi.FileStdout: "stdout", runapi.FileBuildLog: "built", runapi.FileAgentStdout: "agent",
		runapi.FileResult: "{}", runapi.FileGeneratedPolicy: "{}", runapi.FileEvents: "{}\n"}
	plantRun(t, d, buildID, runapi.RunRequest{Build: &runapi.BuildRequest{Family: "authbench-base"}}, everything)
	plantRun(t, d, taskID, runapi.RunRequest{Task: &runapi.TaskRequest{Dir: "/t", Agent: "oracle"}}, everything)
	apis := []runapi.API{d.client, &Local{M: d.m}}
	for _, c := range []struct {
		id     string
		kind   runapi.Kind
		serve  []string
		refuse []string
	}{
		{buildID, runapi.KindBuild, []string{runapi.LogBuild},
			[]string{runapi.LogStdout, runapi.LogEvents, runapi.LogAgentStdout, runapi.LogGeneratedPolicy, "run.json", "../" + taskID + "/agent-stdout",
				"/etc/passwd", "build.log", "..", ".", ""}},
		{taskID, runapi.KindTask, []string{runapi.LogAgentStdout, runapi.LogResult, runapi.LogEvents},
			[]string{runapi.LogStdout, runapi.LogGeneratedPolicy, "generation", "../../../../etc/passwd", "agent-stdout.log", "result.json/"}},
	} {
		for _, api := range apis {
			for _, name := range c.serve {
				rc, err := api.OpenLog(ctx, c.id, name, false)
				if err != nil {
					t.Fatalf("%s %s: %v", c.kind, name, err)
				}
				data, _ := io.ReadAll(rc)
				rc.Close()
				if len(data) == 0 {
					t.Errorf("%s %s served empty", c.kind, name)
				}
			}
			for _, name := range c.refuse {
				_, local := api.(*Local)
				if !local && (name == "" || name == "." || name == "..") {
					// a dot segment or nothing: the HTTP layer resolves the
					// path to another route (the run, the list) before the
					// endpoint; embedded, the name reaches it and is refused
					continue
				}
				_, err := api.OpenLog(ctx, c.id, name, false)
				if local {
					var ae *runapi.ArtifactError
					if !errors.As(err, &ae) || ae.Kind != c.kind || !reflect.DeepEqual(ae.Allowed, apiNames(runapi.ArtifactsOf(c.kind))) {
						t.Fatalf("embedded %s %q: got %v", c.kind, name, err)
					}
					continue
				}
				wantArtifactRefusal(t, err, c.kind, name)
			}
		}
	}
}

// TestLogEndpointRefusesPlantedFiles: a symlink or a FIFO of an artifact's
// name, planted in a command run's directory (as a tree that could write
// there would), is not followed nor opened: refused at once, with and
// without follow, and the symlink's target is never served.
func TestLogEndpointRefusesPlantedFiles(t *testing.T) {
	requireRoot(t)
	d := startTestDaemon(t, Config{Self: testBinary}, "")
	run := submitAndWait(t, d.client, &runapi.RunRequest{Exec: &runapi.ExecRequest{Command: []string{"sh", "-c", "echo out; echo err >&2"},
		UID: uid(65534), GID: uid(65534)}})
	if run.State != runapi.StateSucceeded {
		t.Fatalf("run %s: %s", run.State, run.Error)
	}
	if got := readLog(t, d.client, run.ID, runapi.LogStdout); got != "out\n" {
		t.Fatalf("stdout %q", got)
	}
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("TOP-SECRET"), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr := d.m.store.RunFile(run.ID, runapi.FileStdout), d.m.store.RunFile(run.ID, runapi.FileStderr)
	os.Remove(stdout)
	if err := os.Symlink(secret, stdout); err != nil {
		t.Fatal(err)
	}
	os.Remove(stderr)
	if err := syscall.Mkfifo(stderr, 0o666); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, c := range []struct{ name, says string }{{runapi.LogStdout, "symlink"}, {runapi.LogStderr, "regular file"}} {
		for _, follow := range []bool{false, true} {
			rc, err := d.client.OpenLog(ctx, run.ID, c.name, follow)
			var data []byte
			if err == nil { // refused once the answer has begun: the stream ends in an error
				data, err = io.ReadAll(rc)
				rc.Close()
			}
			if strings.Contains(string(data), "TOP-SECRET") {
				t.Fatalf("%s (follow %v) served the symlink's target", c.name, follow)
			}
			if err == nil || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("%s (follow %v): got %q, %v; want a refusal saying %q", c.name, follow, data, err, c.says)
			}
		}
	}
	if ctx.Err() != nil {
		t.Fatal("a planted file made the daemon wait")
	}
}
