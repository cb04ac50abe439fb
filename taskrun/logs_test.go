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

// TestVerifierAndBuildLogsAreCapped: with a 16-byte cap, the verifier's
// log keeps 16 bytes and ends with the marker counting what it dropped;
// build.log stays under the cap plus its marker.
func TestVerifierAndBuildLogsAreCapped(t *testing.T) {
	setup(t)
	// hello-standard whose verifier writes 100 kB first.
	taskDir := copyFixture(t, "hello-standard")
	script := filepath.Join(taskDir, "tests", "test.sh")
	data, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.Replace(string(data), "mkdir -p /logs/verifier\n", "mkdir -p /logs/verifier\nhead -c 100000 /dev/zero | tr '\\0' x\n", 1))
	if err := os.WriteFile(script, data, 0o755); err != nil {
		t.Fatal(err)
	}
	task, err := tasks.Load(taskDir)
	if err != nil {
		t.Fatal(err)
	}
	images := testImages()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	const limit = 16
	res, err := Run(ctx, Options{
		Task: task, Source: runapi.SourceUnconstrained, Agent: runapi.AgentOracle, Self: testSelf, Images: images,
		Builder: env.NewBuilder(imagemeta.Buildah, images), BaseMap: env.BaseMap{"python": env.BaseShortName},
		Dir: dir, MaxOutputBytes: limit,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Utility {
		t.Fatalf("utility false: %s", res.VerifierError)
	}
	data, err = os.ReadFile(filepath.Join(dir, runapi.VerifierLogFile("utility")))
	if err != nil {
		t.Fatal(err)
	}
	log := string(data)
	i := strings.Index(log, "\n[authbench: output truncated after 16 bytes; ")
	if i != limit || log[:limit] != strings.Repeat("x", limit) || !strings.HasSuffix(log, "; 99984 bytes dropped]\n") {
		t.Fatalf("verifier log not capped at %d bytes with a marker:\n%q", limit, log)
	}
	build, err := os.ReadFile(filepath.Join(dir, runapi.FileBuildLog))
	if err != nil {
		t.Fatal(err)
	}
	if len(build) > limit && !strings.Contains(string(build), "[authbench: output truncated after 16 bytes;") {
		t.Fatalf("build log over the cap without a marker: %d bytes", len(build))
	}
}
