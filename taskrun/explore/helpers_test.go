package explore

import (
	"path/filepath"
	"testing"

	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/tasks"
	"github.com/authbench/authbench/tracer"
)

var (
	testSelf string
	testTr   *tracer.Tracer
)

// setup builds a static authbench (mounted into containers as
// sandbox-init) and loads the tracer, once.
func setup(t testing.TB) {
	t.Helper()
	testenv.NeedRoot(t)
	testenv.NeedTools(t, "runc", "buildah", "debootstrap")
	testSelf, testTr = testenv.AuthbenchFull(t), testenv.Tracer(t)
}

func testImages() env.Store { return env.Store{Dir: testenv.ImagesDir()} }

func fixture(t testing.TB, name string) *tasks.Task {
	t.Helper()
	task, err := tasks.Load(filepath.Join("..", "..", "tasks", "testdata", "fixtures", name))
	if err != nil {
		t.Fatal(err)
	}
	return task
}
