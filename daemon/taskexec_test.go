package daemon

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/authbench/authbench/internal/testenv"
)

// TestTaskRunThroughTheAPI: a task run is a run like any other: queued,
// recorded, and its result is in the record.
func TestTaskRunThroughTheAPI(t *testing.T) {
	tr := testTracer(t)
	testenv.NeedTools(t, "runc", "buildah", "debootstrap")
	d := startTestDaemon(t, Config{Self: testBinary, Tracer: tr, ImagesDir: testenv.ImagesDir()}, "")
	dir, err := filepath.Abs("../tasks/testdata/fixtures/hello-standard")
	if err != nil {
		t.Fatal(err)
	}
	run := submitAndWait(t, d.client, &RunRequest{Task: &TaskRequest{Dir: dir, PolicySource: "spec", Agent: "oracle"}})
	if run.State != StateSucceeded || run.TaskResult == nil || !run.TaskResult.Utility || run.TaskResult.Attack != nil {
		t.Fatalf("task run: %+v (result %+v)", run, run.TaskResult)
	}
	if result := readLog(t, d.client, run.ID, "result"); len(result) == 0 {
		t.Fatal("result.json not served")
	}
	for _, bad := range []struct {
		task  TaskRequest
		field string
	}{
		{TaskRequest{Dir: "relative", PolicySource: "spec", Agent: "oracle"}, "task.dir"},
		{TaskRequest{Dir: dir, PolicySource: "spec", Agent: "robot"}, "task.agent"},
		{TaskRequest{Dir: dir, PolicySource: "model", Agent: "oracle"}, "task.policy_source"},
		{TaskRequest{Dir: dir, PolicySource: "policy", Agent: "oracle"}, "policy"},
	} {
		_, err := d.client.Submit(context.Background(), &RunRequest{Task: &bad.task})
		var ae *APIError
		if !errors.As(err, &ae) || ae.Status != http.StatusBadRequest || ae.Field != bad.field {
			t.Errorf("%+v: %v, want 400 naming %s", bad.task, err, bad.field)
		}
	}
}
