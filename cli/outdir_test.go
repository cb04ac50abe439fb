package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/trial"
	"github.com/authbench/authbench/verdict"
)

// memberDir is a directory owned by uid 1000 holding a link named name
// to a file outside it; it returns the dir and the link's target.
func memberDir(t *testing.T, name string) (string, string) {
	t.Helper()
	testenv.NeedRoot(t)
	dir := filepath.Join(t.TempDir(), "member")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "victim")
	if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, 1000, 1000); err != nil {
		t.Fatal(err)
	}
	return dir, target
}

// TestEscapeDaemonTaskRunOutRefusesAMembersDir: root's `task run --out` into a
// member's directory is refused before a file is copied.
func TestEscapeDaemonTaskRunOutRefusesAMembersDir(t *testing.T) {
	dir, target := memberDir(t, "result.json")
	var ue *safefile.UntrustedError
	if err := copyRunFiles(context.Background(), nil, "run-1", dir); !errors.As(err, &ue) {
		t.Fatalf("copy into a member's dir: %v", err)
	}
	if _, err := os.Lstat(target); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the link's target was made: %v", err)
	}
}

// TestEscapeDaemonReportOutRefusesAMembersDir: root's `report --out` into a member's
// directory is refused; the member's out dir itself is read without
// writing in it.
func TestEscapeDaemonReportOutRefusesAMembersDir(t *testing.T) {
	a := writeOutDir(t, trial.Record{Identity: trial.Identity{Task: "t1", Dataset: "standard", Source: "spec", Agent: "oracle", Trial: 1},
		Verdicts: trial.Verdicts{Utility: true}, PolicyValid: true, Scored: true, Classes: []verdict.Class{}, Finished: time.Now()})
	if err := os.Chown(a, 1000, 1000); err != nil {
		t.Fatal(err)
	}
	dir, target := memberDir(t, "report.md")
	var out, errb bytes.Buffer
	if code := Run([]string{"report", a, "--out", filepath.Join(dir, "report.md")}, &out, &errb); code == 0 ||
		!strings.Contains(errb.String(), "owned by uid 1000") {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if _, err := os.Lstat(target); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the link's target was made: %v", err)
	}
	before, _ := os.ReadDir(a)
	if code := Run([]string{"report", a, "--format", "text"}, &out, &errb); code != 0 {
		t.Fatalf("report of a member's out dir: exit %d: %s", code, errb.String())
	}
	if after, _ := os.ReadDir(a); len(after) != len(before) {
		t.Fatalf("the report wrote in the out dir: %v -> %v", before, after)
	}
}

// TestEscapeDaemonOutFilesRefuseAMembersDir: `exec --trace` and `trace
// --out` into a member's directory are refused before anything runs.
func TestEscapeDaemonOutFilesRefuseAMembersDir(t *testing.T) {
	dir, target := memberDir(t, "trace.jsonl")
	pol := filepath.Join(t.TempDir(), "p.json")
	if err := os.WriteFile(pol, []byte(`{"read":[],"write":[],"execute":["/usr/bin/**","/bin/**"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"exec", "--policy", pol, "--trace", filepath.Join(dir, "t.jsonl"), "--", "/bin/true"},
		{"trace", "--out", filepath.Join(dir, "t.jsonl"), "--", "/bin/true"},
	} {
		var out, errb bytes.Buffer
		if code := Run(args, &out, &errb); code == 0 || !strings.Contains(errb.String(), "owned by uid 1000") {
			t.Errorf("%s: exit %d: %s", args[0], code, errb.String())
		}
	}
	if _, err := os.Lstat(target); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the link's target was made: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("written in the member's dir: %v", ents)
	}
}
