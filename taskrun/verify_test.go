package taskrun

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/env/imagemeta"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
)

// TestCrashingVerifierIsAVerifierError: a verifier that gives no verdict
// is recorded as such, not as utility false.
func TestCrashingVerifierIsAVerifierError(t *testing.T) {
	setup(t)
	dir := copyFixture(t, "hello-standard")
	if err := os.WriteFile(filepath.Join(dir, "tests", "test.sh"), []byte("#!/bin/bash\necho crashing >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	task, err := tasks.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	images := testImages()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	res, err := Run(ctx, Options{
		Task: task, Source: runapi.SourceSpec, Agent: runapi.AgentOracle, Self: testSelf, Images: images,
		Builder: env.NewBuilder(imagemeta.Buildah, images), Tracer: testTr, Dir: t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Utility || !strings.Contains(res.VerifierError, "(exit 3): /logs/verifier/reward.txt: the verifier wrote no reward") {
		t.Fatalf("utility %v, verifier error %q", res.Utility, res.VerifierError)
	}
}
