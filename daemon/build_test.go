package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/runapi"
)

// TestBuildRequestsNameTheField: malformed image build requests are 400s
// naming the field, before anything is built.
func TestBuildRequestsNameTheField(t *testing.T) {
	requireRoot(t)
	d := startTestDaemon(t, Config{}, "")
	task, err := filepath.Abs(fixtureTask)
	if err != nil {
		t.Fatal(err)
	}
	tests := []badFieldCase{
		{`{"build": {"dir": "relative"}}`, "build.dir", "absolute"},
		{`{"build": {"dir": "/nonexistent/task"}}`, "build.dir", ""},
		{`{"build": {"dir": "` + task + `", "family": "python-py313"}}`, "build.family", "takes its bases"},
		{`{"build": {"family": "nope"}}`, "build.family", "unknown base family"},
		{`{"build": {"builder": "kaniko"}}`, "build.builder", ""},
		{`{"exec": {"command": ["/bin/true"]}, "build": {}}`, "build", "one kind of run"},
		{`{"build": {"policy": {"read": [], "write": [], "execute": []}}}`, "build.policy", "unknown field"},
		{`{"build": {}, "timeout_s": -1}`, "timeout_s", "between 0"},
		{`{"task": {"dir": "` + task + `"}, "build": {"dir": "` + task + `"}}`, "build", "one kind of run"},
	}
	d.wantBadFields(t, tests)
}

// TestBuildNeedsRootForBasesAndBuilders: a caller that is not root may
// build only a trusted task, with the default builder and mirror.
func TestBuildNeedsRootForBasesAndBuilders(t *testing.T) {
	task, err := filepath.Abs(fixtureTask)
	if err != nil {
		t.Fatal(err)
	}
	member := Peer{UID: 1000, GID: 1000}
	for _, br := range []runapi.BuildRequest{
		{},
		{Family: "python-py313"},
		{Dir: task, Builder: "docker"},
		{Dir: task, Mirror: "http://deb.example/debian"},
		{Dir: task}, // not under a trusted root
	} {
		_, err := validate(&runapi.RunRequest{Build: &br}, member, nil, testWork)
		var fe *ForbiddenError
		if !errors.As(err, &fe) {
			t.Errorf("%+v as a member: %v, want forbidden", br, err)
		}
	}
}

// TestBuildThroughTheManager: a task image build is a run of the
// Manager: it records the image (found up to date in the shared test
// cache, or built), its build log is one of the run's files, and its
// rootfs is there.
func TestBuildThroughTheManager(t *testing.T) {
	requireRoot(t)
	testenv.NeedTools(t, "buildah", "debootstrap")
	task, err := filepath.Abs(fixtureTask)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewManager(Config{StateDir: t.TempDir(), Work: testWork})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Shutdown(context.Background())
	api := NewLocal(m)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	final, err := runapi.RunBuild(ctx, api, &runapi.RunRequest{Build: &runapi.BuildRequest{Dir: task}})
	if err != nil {
		t.Fatal(err)
	}
	res := final.BuildResult
	if final.State != runapi.StateSucceeded || res == nil || res.InputError != "" {
		t.Fatalf("build: %s %s %+v", final.State, final.Error, res)
	}
	if st, err := os.Stat(filepath.Join(res.Rootfs, "app")); err != nil || !st.IsDir() {
		t.Errorf("image rootfs %s: %v", res.Rootfs, err)
	}
	var img struct {
		Task   string `json:"task"`
		Rootfs string `json:"rootfs"`
	}
	if err := json.Unmarshal(res.Image, &img); err != nil || img.Task != "hello-standard" || img.Rootfs != res.Rootfs {
		t.Errorf("image record %s: %v", res.Image, err)
	}
	if _, err := runapi.ReadLog(ctx, api, final.ID, "build"); err != nil {
		t.Errorf("build log: %v", err)
	}
}
