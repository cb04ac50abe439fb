package installed

import (
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/internal/safefile/safefiletest"
)

// stateDir is the harness's State directory in the upper layer upper.
func stateDir(upper string) string { return filepath.Join(upper, strings.TrimPrefix(State, "/")) }

// sessionsDir is pi's sessions directory in the upper layer upper.
func sessionsDir(upper string) string {
	return filepath.Join(upper, strings.TrimPrefix(SessionsDir, "/"))
}

// openclawDB makes an OpenClaw agent database at file with one
// transcript event holding text.
func openclawDB(t *testing.T, file, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+file)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ev := `{"type":"message","message":{"role":"user","content":"` + text + `"}}`
	for _, q := range []string{`CREATE TABLE transcript_events (session_id TEXT, seq INTEGER, event_json TEXT)`,
		`INSERT INTO transcript_events VALUES ('s', 1, '` + ev + `')`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
}

const openclawRel = "agents/main/agent/openclaw-agent.sqlite"

// transcriptWithin reads h's transcript in upper, failing the test if
// the reader blocks.
func transcriptWithin(t *testing.T, h Harness, upper string) ([][]byte, error) {
	t.Helper()
	var events [][]byte
	var err error
	safefiletest.Within(t, 10*time.Second, func() { events, _, err = Transcript(h, upper) })
	var all []string
	for _, e := range events {
		all = append(all, string(e))
	}
	safefiletest.NoSecret(t, "the transcript", strings.Join(all, "\n"))
	return events, err
}

// TestTranscriptReadsBeneathTheUpperLayer: the pi and OpenClaw readers
// still read a harness's own session files.
func TestTranscriptReadsBeneathTheUpperLayer(t *testing.T) {
	upper := t.TempDir()
	data, err := os.ReadFile("testdata/pi-session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(sessionsDir(upper), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sessionsDir(upper), "s1.jsonl"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if events, err := transcriptWithin(t, Harnesses["pi"], upper); err != nil || len(events) < 3 {
		t.Fatalf("pi: %d events, %v", len(events), err)
	}
	openclawDB(t, filepath.Join(stateDir(upper), openclawRel), "create the file")
	if events, err := transcriptWithin(t, Harnesses["openclaw"], upper); err != nil || len(events) != 1 {
		t.Fatalf("openclaw: %d events, %v", len(events), err)
	}
}

// TestTranscriptRefusesALinkedDirectory: an agent that replaced the
// sessions directory (or a directory above it) with a link to a
// root-only host directory gets none of that directory's files read.
func TestTranscriptRefusesALinkedDirectory(t *testing.T) {
	// The host directory mirrors the upper layer's layout, so whichever
	// directory is linked, the reader would find a session there.
	host := safefiletest.HostDir(t, strings.TrimPrefix(SessionsDir, "/")+"/host.jsonl")
	openclawDB(t, filepath.Join(stateDir(host), openclawRel), safefiletest.Secret)
	for _, tc := range []struct {
		h    Harness
		link string // the directory the agent replaced, relative to the upper layer
	}{
		{Harnesses["pi"], strings.TrimPrefix(SessionsDir, "/")},
		{Harnesses["pi"], strings.TrimPrefix(State, "/")},
		{Harnesses["pi"], strings.TrimPrefix(StateRoot, "/")},
		{Harnesses["pi"], "var"},
		{Harnesses["openclaw"], strings.TrimPrefix(State, "/")},
		{Harnesses["openclaw"], strings.TrimPrefix(State, "/") + "/agents/main"},
	} {
		t.Run(tc.h.Name+" "+tc.link, func(t *testing.T) {
			upper := t.TempDir()
			safefiletest.LinkDir(t, filepath.Join(upper, tc.link), filepath.Join(host, tc.link))
			_, err := transcriptWithin(t, tc.h, upper)
			if err == nil {
				t.Fatal("a transcript was read through a link to a host directory")
			}
			if !errors.Is(err, safefile.ErrSymlink) {
				t.Errorf("err = %v, want a refused link", err)
			}
		})
	}
}

// TestTranscriptRefusesAFIFO: a FIFO where the session file or the agent
// database is read is refused at once; the reader never blocks on it.
func TestTranscriptRefusesAFIFO(t *testing.T) {
	upper := t.TempDir()
	safefiletest.FIFO(t, filepath.Join(sessionsDir(upper), "z.jsonl"))
	if _, err := transcriptWithin(t, Harnesses["pi"], upper); !errors.Is(err, safefile.ErrNotRegular) {
		t.Errorf("pi: %v, want a refused FIFO", err)
	}
	safefiletest.FIFO(t, filepath.Join(stateDir(upper), openclawRel))
	if _, err := transcriptWithin(t, Harnesses["openclaw"], upper); !errors.Is(err, safefile.ErrNotRegular) {
		t.Errorf("openclaw: %v, want a refused FIFO", err)
	}
	// A FIFO as the write-ahead log beside a real database is skipped.
	upper = t.TempDir()
	openclawDB(t, filepath.Join(stateDir(upper), openclawRel), "ok")
	safefiletest.FIFO(t, filepath.Join(stateDir(upper), openclawRel+"-wal"))
	if events, err := transcriptWithin(t, Harnesses["openclaw"], upper); err != nil || len(events) != 1 {
		t.Errorf("openclaw with a FIFO as its log: %d events, %v", len(events), err)
	}
}
