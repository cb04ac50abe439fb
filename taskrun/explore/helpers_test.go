package explore

import (
	"path/filepath"
	"sync"
	"testing"

	"go.uber.org/zap"

	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/tasks"
	"github.com/authbench/authbench/tracer"
)

var (
	setupOnce sync.Once
	setupErr  error
	testSelf  string
	testTr    *tracer.Tracer
)

// setup builds a static authbench (mounted into containers as
// sandbox-init) and loads the tracer, once.
func setup(t testing.TB) {
	t.Helper()
	testenv.NeedRoot(t)
	testenv.NeedTools(t, "runc", "buildah", "debootstrap")
	testSelf = testenv.Authbench(t)
	setupOnce.Do(func() { testTr, setupErr = tracer.Load(tracer.Options{}, zap.NewNop()) })
	if setupErr != nil {
		t.Fatal(setupErr)
	}
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
