package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/authbench/authbench/daemon/taskwork"
	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/runapi"
)

// startTaskDaemon is startTestDaemon for task runs (cfg with the test
// binary, a tracer and the shared images dir; runc and buildah needed),
// with the absolute path of the hello-standard fixture task.
func startTaskDaemon(t *testing.T, cfg Config) (*testDaemon, string) {
	t.Helper()
	tr := testTracer(t)
	testenv.NeedTools(t, "runc", "buildah", "debootstrap")
	cfg.Self, cfg.Tracer = testenv.FullBinary(testBinary), tr
	cfg.Work = taskwork.New(taskwork.Config{ImagesDir: testenv.ImagesDir(), Tracer: tr})
	d := startTestDaemon(t, cfg, "")
	dir, err := filepath.Abs(fixtureTask)
	if err != nil {
		t.Fatal(err)
	}
	return d, dir
}

// TestTaskRunThroughTheAPI: a task run is a run like any other: queued,
// recorded, and its result is in the record.
func TestTaskRunThroughTheAPI(t *testing.T) {
	d, dir := startTaskDaemon(t, Config{})
	run := submitAndWait(t, d.client, &runapi.RunRequest{Task: &runapi.TaskRequest{Dir: dir, PolicySource: "spec", Agent: "oracle"}})
	if run.State != runapi.StateSucceeded || run.TaskResult == nil || !run.TaskResult.Utility || run.TaskResult.Attack != nil {
		t.Fatalf("task run: %+v (result %+v)", run, run.TaskResult)
	}
	if run.TaskResult.Semantics != "published" {
		t.Errorf("a task run's default semantics is %q, want published", run.TaskResult.Semantics)
	}
	// The record carries the agent's identity: the image's USER.
	userTask, err := filepath.Abs(filepath.Join(filepath.Dir(fixtureTask), "harbor-image-user"))
	if err != nil {
		t.Fatal(err)
	}
	run = submitAndWait(t, d.client, &runapi.RunRequest{Task: &runapi.TaskRequest{Dir: userTask, PolicySource: "unconstrained", Agent: "oracle"}})
	if run.State != runapi.StateSucceeded || run.UID != 1234 || run.GID != 2345 || run.TaskResult == nil || !run.TaskResult.Utility {
		t.Errorf("image USER builder: state %s uid %d gid %d result %+v", run.State, run.UID, run.GID, run.TaskResult)
	}
	if result := readLog(t, d.client, run.ID, "result"); len(result) == 0 {
		t.Fatal("result.json not served")
	}
	for _, bad := range []struct {
		task  runapi.TaskRequest
		field string
	}{
		{runapi.TaskRequest{Dir: "relative", PolicySource: "spec", Agent: "oracle"}, "task.dir"},
		{runapi.TaskRequest{Dir: dir, PolicySource: "spec", Agent: "robot"}, "task.agent"},
		{runapi.TaskRequest{Dir: dir, PolicySource: "model", Agent: "oracle"}, "task.policy_source"},
		{runapi.TaskRequest{Dir: dir, PolicySource: "policy", Agent: "oracle"}, "task.policy"},
		{runapi.TaskRequest{Dir: dir, PolicySource: "spec", Agent: "oracle", Policy: json.RawMessage(`{"read":[],"write":[],"execute":[]}`)}, "task.policy"},
		{runapi.TaskRequest{Dir: dir, PolicySource: "spec", Agent: "oracle", Semantics: "loose"}, "task.semantics"},
	} {
		_, err := d.client.Submit(context.Background(), &runapi.RunRequest{Task: &bad.task})
		var ae *runapi.APIError
		if !errors.As(err, &ae) || ae.Status != http.StatusBadRequest || ae.Field != bad.field {
			t.Errorf("%+v: %v, want 400 naming %s", bad.task, err, bad.field)
		}
	}
}
