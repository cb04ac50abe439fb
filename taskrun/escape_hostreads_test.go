package taskrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/authbench/authbench/agent/installed"
	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/internal/safefile/safefiletest"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/taskrun/internal/runbox"
)

// finishHarness runs an installed agent's finish (the transcript kept in
// harness-transcript.jsonl and trajectory.json) on a run whose upper
// layer plant prepared, and returns the run's directory and result.
func finishHarness(t *testing.T, harness string, plant func(upper string)) (string, *runapi.TaskResult) {
	t.Helper()
	dir := t.TempDir()
	rootfs := &env.Rootfs{Dir: filepath.Join(dir, "rootfs")}
	if err := os.MkdirAll(rootfs.Upper(), 0o755); err != nil {
		t.Fatal(err)
	}
	plant(rootfs.Upper())
	r := &runner{Box: &runbox.Box{Options: Options{Dir: dir}, Log: zap.NewNop(), Rootfs: rootfs}, res: &runapi.TaskResult{}}
	in := &installedRun{h: installed.Harnesses[harness], cfg: installed.Run{Endpoint: installed.Endpoint{Model: "m"}, Workdir: "/app"}}
	safefiletest.Within(t, 10*time.Second, func() { in.finish(r) })
	for _, f := range []string{runapi.FileHarnessTranscript, runapi.FileTrajectory} {
		data, _ := os.ReadFile(filepath.Join(dir, f))
		safefiletest.NoSecret(t, f, string(data))
	}
	return dir, r.res
}

// TestEscapeDaemonHarnessTranscriptStaysInTheUpperLayer: the finding of
// issue 33 — an agent that replaced pi's sessions directory with a link
// to a root-only host directory got the host's *.jsonl into its own
// harness-transcript.jsonl and trajectory.json; a FIFO as its session
// file blocked the run. Both are refused now, the run noting why.
func TestEscapeDaemonHarnessTranscriptStaysInTheUpperLayer(t *testing.T) {
	host := safefiletest.HostDir(t)
	event := `{"type":"message","message":{"role":"user","content":"` + safefiletest.Secret + `"}}` + "\n"
	if err := os.WriteFile(filepath.Join(host, "host.jsonl"), []byte(event), 0o600); err != nil {
		t.Fatal(err)
	}
	sessions := func(upper string) string { return filepath.Join(upper, strings.TrimPrefix(installed.SessionsDir, "/")) }
	_, res := finishHarness(t, "pi", func(upper string) { safefiletest.LinkDir(t, sessions(upper), host) })
	if res.HarnessError == "" {
		t.Error("a linked sessions directory: no harness error noted")
	}
	_, res = finishHarness(t, "pi", func(upper string) { safefiletest.FIFO(t, filepath.Join(sessions(upper), "s.jsonl")) })
	if !strings.Contains(res.HarnessError, "FIFO") {
		t.Errorf("a FIFO as the session file: harness error %q, want it named", res.HarnessError)
	}
	// The harness's own session is kept.
	dir, res := finishHarness(t, "pi", func(upper string) {
		if err := os.MkdirAll(sessions(upper), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sessions(upper), "s.jsonl"), []byte(strings.ReplaceAll(event, safefiletest.Secret, "own")), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	if data, err := os.ReadFile(filepath.Join(dir, runapi.FileHarnessTranscript)); err != nil || !strings.Contains(string(data), "own") || res.HarnessError != "" {
		t.Errorf("the harness's own session: %q, %v, harness error %q", data, err, res.HarnessError)
	}
}

// TestEscapeDaemonHarnessConfigOverAFIFO: an image with a FIFO where the
// harness's configuration is written (its State directory) is replaced,
// not written through; on main the write blocked the run forever.
func TestEscapeDaemonHarnessConfigOverAFIFO(t *testing.T) {
	rootfs := t.TempDir()
	in := &installedRun{h: installed.Harnesses["pi"], cfg: installed.Run{Endpoint: installed.Endpoint{BaseURL: "http://127.0.0.1:1/v1", Model: "m"}, Workdir: "/app"}}
	files, err := in.h.Files(in.cfg)
	if err != nil || len(files) == 0 {
		t.Fatalf("pi's files: %v %v", files, err)
	}
	for _, f := range files {
		safefiletest.FIFO(t, filepath.Join(rootfs, strings.TrimPrefix(f.Path, "/")))
	}
	r := &runner{Box: &runbox.Box{Log: zap.NewNop(), Rootfs: &env.Rootfs{Path: rootfs}}, res: &runapi.TaskResult{}}
	safefiletest.Within(t, 5*time.Second, func() { err = in.writeFiles(r) })
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if st, err := os.Lstat(filepath.Join(rootfs, strings.TrimPrefix(f.Path, "/"))); err != nil || !st.Mode().IsRegular() {
			t.Errorf("%s: %v %v, want the harness's regular file", f.Path, st, err)
		}
	}
}
