package installed

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/internal/safefile/safefiletest"
)

// homeSessions are where Claude Code and Codex record a session, below
// the harness's HOME in the upper layer, and a directory of that path an
// agent could replace.
var homeSessions = []struct {
	harness, file, testdata, link string
}{
	{"claude-code", path.Join(claudeDir, "projects", "-srv-analytics", ClaudeSessionID+".jsonl"), "testdata/claude-session.jsonl", path.Join(claudeDir, "projects")},
	{"codex", path.Join(codexHome, "sessions", "2026", "12", "03", "rollout-2026-12-03T07-30-02-x.jsonl"), "testdata/codex-rollout.jsonl", path.Join(codexHome, "sessions", "2026")},
}

// TestHomeTranscriptsReadBeneathTheUpperLayer: Claude Code's and Codex's
// session files, where they record them, are read (Codex's newest by
// name, its names beginning with the time); a directory on the way
// replaced by a link to a root-only host directory holding a session
// there gets nothing read; a FIFO as the session file is refused at once.
func TestHomeTranscriptsReadBeneathTheUpperLayer(t *testing.T) {
	for _, tc := range homeSessions {
		t.Run(tc.harness, func(t *testing.T) {
			h := Harnesses[tc.harness]
			data, err := os.ReadFile(tc.testdata)
			if err != nil {
				t.Fatal(err)
			}
			upper := t.TempDir()
			file := filepath.Join(upper, strings.TrimPrefix(tc.file, "/"))
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, data, 0o644); err != nil {
				t.Fatal(err)
			}
			older := filepath.Join(filepath.Dir(file), "rollout-2026-12-03T07-00-00-old.jsonl")
			if err := os.WriteFile(older, []byte(`{"type":"session_meta","payload":{"id":"old"}}`+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			events, err := transcriptWithin(t, h, upper)
			if err != nil || len(events) != strings.Count(string(data), "\n") {
				t.Fatalf("%d events, %v", len(events), err)
			}
			if tr := ToTrajectory(h, "m", events); tr.SessionID == "old" || len(tr.Steps) < 3 {
				t.Errorf("session %q, %d steps: not the run's own file", tr.SessionID, len(tr.Steps))
			}

			host := safefiletest.HostDir(t, strings.TrimPrefix(tc.file, "/"))
			linked := t.TempDir()
			rel := strings.TrimPrefix(tc.link, "/")
			safefiletest.LinkDir(t, filepath.Join(linked, rel), filepath.Join(host, rel))
			if _, err := transcriptWithin(t, h, linked); err == nil {
				t.Error("a transcript was read through a link to a host directory")
			}

			fifo := t.TempDir()
			safefiletest.FIFO(t, filepath.Join(fifo, strings.TrimPrefix(tc.file, "/")))
			if _, err := transcriptWithin(t, h, fifo); !errors.Is(err, safefile.ErrNotRegular) {
				t.Errorf("a FIFO as the session file: %v, want it refused", err)
			}
		})
	}
}
