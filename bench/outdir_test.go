package bench

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/trial"
)

const memberUID = 1000

// TestEscapeDaemonOutDirOfAMemberWithAPlantedLinkIsRefused: root's bench in a
// member-owned out dir holding a results.db link is refused before
// anything is written; the link's target is untouched (not created).
func TestEscapeDaemonOutDirOfAMemberWithAPlantedLinkIsRefused(t *testing.T) {
	testenv.NeedRoot(t)
	out := filepath.Join(t.TempDir(), "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(out, memberUID, memberUID); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "root-owned.db")
	if err := os.Symlink(target, filepath.Join(out, DBFile)); err != nil {
		t.Fatal(err)
	}
	cfg := Config{TasksDir: fixtureTasks(t, "hello-standard"), Sources: []Source{{Name: runapi.SourceSpec}}, Agent: "oracle", Trials: 1, Out: out}
	_, err := Run(context.Background(), cfg, Options{API: newFakeAPI(nil)})
	var ue *safefile.UntrustedError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "owned by uid 1000") {
		t.Fatalf("bench in a member's out dir: %v", err)
	}
	if _, err := os.Lstat(target); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the link's target was made: %v", err)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 1 {
		t.Fatalf("written in the member's out dir: %v", ents)
	}
}

// TestEscapeDaemonOutDirWritableByOthersIsRefused: a world-writable (or
// group-writable) out dir is refused, and so is one under a directory
// another user owns.
func TestEscapeDaemonOutDirWritableByOthersIsRefused(t *testing.T) {
	for _, mode := range []os.FileMode{0o777, 0o770, 0o777 | os.ModeSticky} {
		out := filepath.Join(t.TempDir(), "out")
		if err := os.Mkdir(out, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(out, mode); err != nil {
			t.Fatal(err)
		}
		cfg := Config{TasksDir: t.TempDir(), Sources: []Source{{Name: runapi.SourceSpec}}, Agent: "oracle", Trials: 1, Out: out}
		_, err := Run(context.Background(), cfg, Options{API: newFakeAPI(nil)})
		var ue *safefile.UntrustedError
		if !errors.As(err, &ue) {
			t.Fatalf("mode %v: %v", mode, err)
		}
		if ents, _ := os.ReadDir(out); len(ents) != 0 {
			t.Fatalf("mode %v: written: %v", mode, ents)
		}
	}
}

// TestEscapeDaemonStoreRefusesLinkedDatabaseFiles: in the caller's own out dir, a
// link at results.db or at one of SQLite's files beside it is refused
// and its target untouched.
func TestEscapeDaemonStoreRefusesLinkedDatabaseFiles(t *testing.T) {
	for _, name := range dbFiles {
		dir := t.TempDir()
		target := filepath.Join(t.TempDir(), "victim")
		if err := os.WriteFile(target, []byte("keep"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
		d, err := safefile.OpenOutDir(dir, os.Geteuid())
		if err != nil {
			t.Fatal(err)
		}
		if s, err := OpenStore(d); !errors.Is(err, safefile.ErrSymlink) {
			if s != nil {
				s.Close()
			}
			t.Fatalf("%s link: %v", name, err)
		}
		d.Close()
		if got, _ := os.ReadFile(target); string(got) != "keep" {
			t.Fatalf("%s link: target changed to %q", name, got)
		}
	}
	// A hard link to another file is not written through either.
	dir := t.TempDir()
	other := filepath.Join(dir, "other")
	if err := os.WriteFile(other, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(other, filepath.Join(dir, DBFile)); err != nil {
		t.Fatal(err)
	}
	d, err := safefile.OpenOutDir(dir, os.Geteuid())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := OpenStore(d); err == nil || !strings.Contains(err.Error(), "hard links") {
		t.Fatalf("hard link: %v", err)
	}
}

// forge runs a bench of two runs into a fresh out dir, changes it with
// forge, and returns the error of resuming it and of reporting it.
func forge(t *testing.T, change func(t *testing.T, out string, db *sql.DB)) (resume, report error) {
	t.Helper()
	out := t.TempDir()
	cfg := Config{TasksDir: fixtureTasks(t, "hello-standard", "secret-sensitive"), Sources: []Source{{Name: runapi.SourceSpec}},
		Agent: "oracle", Trials: 1, Out: out}
	if _, err := Run(context.Background(), cfg, Options{API: newFakeAPI(nil)}); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadRecords(out); err != nil {
		t.Fatalf("before forging: %v", err)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(out, DBFile))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1) // one connection: its temporary tables stay
	change(t, out, db)
	db.Close()
	api := newFakeAPI(nil)
	_, resume = Run(context.Background(), cfg, Options{API: api})
	if resume != nil && len(api.submits) != 0 {
		t.Errorf("runs carried out before the forged row was refused: %v", api.submits)
	}
	_, report = LoadRecords(out)
	return resume, report
}

// TestEscapeDaemonForgedRowsAreRefusedAtResume: a row changed in the database, a row
// added to it, and a result.json changed on disk are each refused, at
// resume and by the report, naming the run.
func TestEscapeDaemonForgedRowsAreRefusedAtResume(t *testing.T) {
	exec := func(q string) func(t *testing.T, out string, db *sql.DB) {
		return func(t *testing.T, _ string, db *sql.DB) {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
	}
	cases := map[string]struct {
		change func(t *testing.T, out string, db *sql.DB)
		run    string
	}{
		"changed record": {exec(`UPDATE runs SET record = json_set(record, '$.denials', 0, '$.agent_s', 12345) WHERE task = 'secret-sensitive'`),
			"secret-sensitive/spec/oracle/1"},
		"added row": {func(t *testing.T, _ string, db *sql.DB) {
			for _, q := range []string{`CREATE TEMP TABLE forged AS SELECT * FROM runs WHERE task = 'hello-standard'`,
				`UPDATE forged SET agent = 'shortcut', record = json_set(record, '$.agent', 'shortcut'), result_sha256 = NULL`,
				`INSERT INTO runs SELECT * FROM forged`} {
				if _, err := db.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
		},
			"hello-standard/spec/shortcut/1"},
		"copied hash": {exec(`UPDATE runs SET result_sha256 = (SELECT result_sha256 FROM runs WHERE task = 'hello-standard') WHERE task = 'secret-sensitive'`),
			"secret-sensitive/spec/oracle/1"},
		"changed result.json": {func(t *testing.T, out string, db *sql.DB) {
			var dir string
			if err := db.QueryRow(`SELECT dir FROM runs WHERE task = 'hello-standard'`).Scan(&dir); err != nil {
				t.Fatal(err)
			}
			name := filepath.Join(out, dir, JobResultFile)
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(name, []byte(strings.Replace(string(data), `"utility": true`, `"utility": false`, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "hello-standard/spec/oracle/1"},
	}
	for name, c := range cases {
		resume, report := forge(t, c.change)
		for what, err := range map[string]error{"resume": resume, "report": report} {
			var me *MismatchError
			if !errors.As(err, &me) || me.Run.String() != c.run || !strings.Contains(err.Error(), c.run) {
				t.Errorf("%s: %s: %v, want a mismatch of %s", name, what, err, c.run)
			}
		}
	}
}

// TestStoreBackfillsHashesOfAnOlderDatabase: a database made before
// result_sha256 keeps the runs whose result.json holds their record and
// refuses the others.
func TestStoreBackfillsHashesOfAnOlderDatabase(t *testing.T) {
	dir := t.TempDir()
	s := testStore(t, dir)
	a, b := sampleRecord("a", 1), sampleRecord("b", 1)
	for _, r := range []*trial.Record{&a, &b} {
		if err := s.Put(r); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, DBFile))
	if err != nil {
		t.Fatal(err)
	}
	// As an older bench left it: no hash column; b's row was forged.
	for _, q := range []string{`ALTER TABLE runs DROP COLUMN result_sha256`,
		`UPDATE runs SET record = json_set(record, '$.utility', json('false')) WHERE task = 'b'`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	_, err = LoadRecords(dir)
	var me *MismatchError
	if !errors.As(err, &me) || me.Run.Task != "b" {
		t.Fatalf("older database with a forged row: %v", err)
	}
	s = testStore(t, dir)
	defer s.Close()
	if _, err := s.db.Exec(`DELETE FROM runs WHERE task = 'b'`); err != nil {
		t.Fatal(err)
	}
	recs, err := s.Records()
	if err != nil || len(recs) != 1 || recs[0].Task != "a" {
		t.Fatalf("%+v %v", recs, err)
	}
}

// TestProgressEscapesNames: bench progress lines escape a hostile task,
// agent, skipped dir and error.
func TestProgressEscapesNames(t *testing.T) {
	const hostile = "t\x1b]0;pwned\x07\x1b[2J\u202e"
	var buf strings.Builder
	p := NewLineProgress(&buf)
	p.Start(2, 0, []trial.SkippedTask{{Dir: "/tasks/" + hostile, Reason: hostile}})
	p.Done(&trial.Record{Identity: trial.Identity{Task: hostile, Source: "dir:" + hostile, Agent: `cmd:"` + hostile + `"`, Trial: 1}, RunEnd: trial.RunEnd{Error: hostile}}, Stats{})
	p.Finish(errors.New("run " + hostile + ": failed"))
	out := buf.String()
	for _, bad := range []string{"\x1b", "\x07", "\u202e"} {
		if strings.Contains(out, bad) {
			t.Fatalf("progress carries %q: %q", bad, out)
		}
	}
	if strings.Count(out, `t\x1b]0;pwned\x07`) != 7 {
		t.Fatalf("names missing: %q", out)
	}
}

// TestProgressErrorOnOneLine: a run's multi-line error (a build log, a
// verifier's quoted pytest output, joined from two attempts that failed
// alike) is one progress line, its escapes decoded, bounded, shown once;
// a run that never started says its agent did not run.
func TestProgressErrorOnOneLine(t *testing.T) {
	pytest := `pytest said "` + strings.Repeat(`E   assert 'a' == 'b'\n`, 1000) + `"`
	joined := "run r1: " + pytest + "\nrun r2: " + pytest
	var buf strings.Builder
	p := NewLineProgress(&buf)
	p.Start(1, 0, nil)
	p.Done(&trial.Record{Identity: trial.Identity{Task: "t", Source: "spec", Agent: "oracle"},
		RunEnd: trial.RunEnd{Error: joined, AgentDidNotRun: true}}, Stats{NErrors: 1})
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2 (start, the run): %.300q", len(lines), buf.String())
	}
	line := lines[1]
	if len(line) > maxProgressError+200 {
		t.Errorf("progress line of %d bytes", len(line))
	}
	if strings.Contains(line, `\n`) || strings.Count(line, "assert 'a' == 'b'") > 3 {
		t.Errorf("escapes left or output repeated: %q", line)
	}
	if !strings.Contains(line, "error: run r1: pytest said \"E assert 'a' == 'b' | E assert 'a' == 'b' | \" | run r2: ") ||
		!strings.Contains(line, "(the agent did not run) (0 failed, 1 errors") {
		t.Errorf("progress line %q", line)
	}
}

// TestProgressDaemonErrorNamesNoRecord: a run the daemon gave no record
// of has no verdict, and its line does not claim its agent never ran.
func TestProgressDaemonErrorNamesNoRecord(t *testing.T) {
	r := &trial.Record{Identity: trial.Identity{Task: "t", Source: "spec", Agent: "oracle"},
		RunEnd: trial.RunEnd{Error: "run r1 ended failed without a task result", AgentDidNotRun: true}, ErrorKind: runapi.ErrorDaemon}
	if got := outcomeLine(r); got != "error: run r1 ended failed without a task result (no record of the run: no verdict)" {
		t.Errorf("verdict %q", got)
	}
}
