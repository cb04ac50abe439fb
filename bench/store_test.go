package bench

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/trial"
	"github.com/authbench/authbench/verdict"
)

func sampleRecord(task string, n int) trial.Record {
	yes := true
	cov := 0.5
	return trial.Record{Identity: trial.Identity{Task: task, Dataset: "sensitive", Source: "spec", Agent: "oracle", Trial: n, Semantics: "published"},
		Verdicts: trial.Verdicts{Utility: true, Attack: &yes, TracedExposure: true}, PolicyValid: true, ReadP: 1, ReadR: 0.5, ReadF1: 2.0 / 3,
		SensitiveCoverage: &cov, Scored: true, Classes: []verdict.Class{verdict.ClassSensitiveExposure}, Diagnosis: trial.Diagnosis{Primary: verdict.ClassSensitiveExposure},
		ExposureAccess: "open read /k", Denials: 2, WallS: 1.5, Dir: task, Finished: time.Now().UTC().Round(0)}
}

// testStore opens the store of the out dir dir for the test.
func testStore(t *testing.T, dir string) *Store {
	t.Helper()
	d, err := safefile.OpenOutDir(dir, os.Geteuid())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	s, err := OpenStore(d)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestStoreRoundTripAndReplace(t *testing.T) {
	dir := t.TempDir()
	s := testStore(t, dir)
	a, b := sampleRecord("b", 1), sampleRecord("a", 2)
	for _, r := range []trial.Record{a, b} {
		if err := s.Put(&r); err != nil {
			t.Fatal(err)
		}
	}
	a2 := a
	a2.Utility, a2.Error = false, "daemon gone"
	if err := s.Put(&a2); err != nil {
		t.Fatal(err)
	}
	s.Close()
	got, err := LoadRecords(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !reflect.DeepEqual(got[0], b) || !reflect.DeepEqual(got[1], a2) {
		t.Fatalf("records\n%+v\nwant\n%+v\n%+v", got, b, a2)
	}
	if _, err := LoadRecords(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no results database") {
		t.Fatalf("empty dir: %v", err)
	}
}

// TestStoreDiskFull fills a small tmpfs: Put fails with ErrDiskFull and
// every run committed before stays readable.
func TestStoreDiskFull(t *testing.T) {
	testenv.NeedRoot(t)
	dir := t.TempDir()
	err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=256k,mode=0700")
	testenv.NeedNoError(t, "tmpfs mount", err)
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	s := testStore(t, dir)
	defer s.Close()
	var stored int
	var putErr error
	big := strings.Repeat("x", 8<<10)
	for i := 0; i < 1000; i++ {
		r := sampleRecord(fmt.Sprintf("task-%04d", i), 1)
		r.PolicyError = big
		if putErr = s.Put(&r); putErr != nil {
			break
		}
		stored++
	}
	if !errors.Is(putErr, ErrDiskFull) {
		t.Fatalf("after %d runs: %v, want ErrDiskFull", stored, putErr)
	}
	// Read back, through the open store and a new one: every committed
	// run is there.
	got, err := s.Records()
	if err != nil {
		t.Fatalf("read after disk full: %v", err)
	}
	if len(got) != stored {
		t.Fatalf("%d records readable, %d committed", len(got), stored)
	}
	again, err := LoadRecords(dir)
	if err != nil || len(again) != stored {
		t.Fatalf("reopened: %d records, %v; %d committed", len(again), err, stored)
	}
}

func TestClaimOutDirRefusesOtherSettings(t *testing.T) {
	out := t.TempDir()
	cfg := Config{TasksDir: "/tasks", Sources: []Source{{Name: "spec"}}, Agent: "oracle", Trials: 1, Parallel: 2, Out: out}
	if err := cfg.check(); err != nil {
		t.Fatal(err)
	}
	od, err := safefile.OpenOutDir(out, os.Geteuid())
	if err != nil {
		t.Fatal(err)
	}
	defer od.Close()
	if err := claimOutDir(&cfg, od, "test"); err != nil {
		t.Fatal(err)
	}
	if got, err := LoadSettings(out); err != nil || !reflect.DeepEqual(got, cfg.Settings()) {
		t.Fatalf("settings %+v (%v), want %+v", got, err, cfg.Settings())
	}
	same := cfg
	same.Parallel = 7 // parallelism may change
	if err := claimOutDir(&same, od, "test"); err != nil {
		t.Fatalf("same settings: %v", err)
	}
	cases := map[string]func(c *Config){
		"--trials":          func(c *Config) { c.Trials = 2 },
		"--sources":         func(c *Config) { c.Sources = []Source{{Name: "spec"}, {Name: "unconstrained"}} },
		"--agent":           func(c *Config) { c.Agent = `cmd:"true"` },
		"--shard":           func(c *Config) { c.Shard = Shard{1, 2} },
		"--semantics":       func(c *Config) { c.Semantics = string(policy.SemanticsPrecise) },
		"--tasks":           func(c *Config) { c.TasksDir = "/other" },
		"--trust-verifiers": func(c *Config) { c.TrustVerifiers = true },
		"--base-map":        func(c *Config) { c.BaseMap = map[string]string{"python": "base"} },
	}
	for setting, change := range cases {
		c := cfg
		change(&c)
		err := claimOutDir(&c, od, "test")
		var me *SettingsMismatchError
		if !errors.As(err, &me) || me.Setting != setting || !strings.Contains(err.Error(), setting) {
			t.Errorf("%s: %v", setting, err)
		}
	}
}

// TestStoreAddsColumns: a database made before the added columns
// (generation_valid, the agent's exit and stop reason, verifiers_untraced,
// image_substitutions) and when utility was NOT NULL gains them and a
// nullable utility when opened, keeps its rows, and stores them for new
// runs, NULL verdicts of a run that never started included.
func TestStoreAddsColumns(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, DBFile))
	if err != nil {
		t.Fatal(err)
	}
	old := schema
	for _, c := range addedColumns {
		old = strings.Replace(old, "\t"+c.name+" "+c.decl+",\n", "", 1)
	}
	old = strings.Replace(old, "\tutility INTEGER,\n", "\tutility INTEGER NOT NULL,\n", 1)
	if strings.Contains(old, "agent_exit_code") || strings.Contains(old, "generation_valid") || !strings.Contains(old, "utility INTEGER NOT NULL") {
		t.Fatalf("old schema still has added columns:\n%s", old)
	}
	if _, err := db.Exec(old); err != nil {
		t.Fatal(err)
	}
	oldRec := `{"task":"old","source":"spec","agent":"oracle","trial":1,"classes":[],"dir":"d"}`
	if _, err := db.Exec(`INSERT INTO runs VALUES ('old','spec','oracle',1,'standard','',1,NULL,0,1,1,1,1,'','','','',0,0,0,0,0,'d','2026-01-01T00:00:00Z',?)`, oldRec); err != nil {
		t.Fatal(err)
	}
	db.Close()
	// The old run's result.json, as an older bench wrote it: its hash is
	// recorded when the database gains result_sha256.
	if err := os.MkdirAll(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "d", JobResultFile), []byte(`{"authbench": `+oldRec+`}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := testStore(t, dir)
	defer s.Close()
	r := &trial.Record{Identity: trial.Identity{Task: "t", Source: "gen:heuristic", Agent: "oracle", Trial: 1},
		Classes: []verdict.Class{verdict.ClassInvalidPolicy}, Dir: "t",
		Generation: &trial.Generation{Generator: "heuristic", Valid: false, Reason: "bad"},
		Findings:   trial.Findings{VerifiersUntraced: true},
		RunEnd: trial.RunEnd{AgentExitCode: 137, AgentSignal: "SIGKILL", AgentTimedOut: true,
			AgentStopReason: "limits", ImageSubstitutions: []runapi.ImageSubstitution{{Service: "sink",
				Ref: "ubuntu:24.04", Used: "authbench-base-ubuntu", Why: "offline stand-in <b>"}}}}
	if err := s.Put(r); err != nil {
		t.Fatal(err)
	}
	var valid, timedOut, untraced sql.NullBool
	var exit sql.NullInt64
	var signal, stop, subs sql.NullString
	if err := s.db.QueryRow(`SELECT generation_valid, agent_exit_code, agent_signal, agent_timed_out, verifiers_untraced,
		agent_stop_reason, image_substitutions FROM runs WHERE task = 't'`).
		Scan(&valid, &exit, &signal, &timedOut, &untraced, &stop, &subs); err != nil {
		t.Fatal(err)
	}
	if !valid.Valid || valid.Bool || exit.Int64 != 137 || signal.String != "SIGKILL" || !timedOut.Bool || !untraced.Bool {
		t.Fatalf("generation_valid %+v exit %+v signal %+v timed out %+v untraced %+v", valid, exit, signal, timedOut, untraced)
	}
	if stop.String != "limits" || subs.String != `[{"service":"sink","ref":"ubuntu:24.04","used":"authbench-base-ubuntu","why":"offline stand-in \u003cb\u003e"}]` {
		t.Fatalf("agent_stop_reason %+v image_substitutions %+v", stop, subs)
	}
	var oldSubs sql.NullString
	if err := s.db.QueryRow(`SELECT image_substitutions FROM runs WHERE task = 'old'`).Scan(&oldSubs); err != nil || oldSubs.Valid {
		t.Fatalf("old row's image_substitutions %+v %v, want NULL", oldSubs, err)
	}
	recs, err := s.Records()
	if err != nil || len(recs) != 2 || recs[0].Task != "old" || recs[1].Generation == nil || recs[1].Generation.Reason != "bad" || recs[1].AgentExitCode != 137 {
		t.Fatalf("%+v %v", recs, err)
	}
	if !reflect.DeepEqual(recs[1].ImageSubstitutions, r.ImageSubstitutions) || recs[1].AgentStopReason != "limits" {
		t.Fatalf("read back %+v %q", recs[1].ImageSubstitutions, recs[1].AgentStopReason)
	}
	notRun := &trial.Record{Identity: trial.Identity{Task: "n", Source: "spec", Agent: "oracle", Trial: 1, Semantics: "published"},
		Classes: []verdict.Class{}, Dir: "n", RunEnd: trial.RunEnd{Error: "build: COPY app.py: no such file", AgentDidNotRun: true}}
	if err := s.Put(notRun); err != nil {
		t.Fatalf("a run that never started, in a migrated database: %v", err)
	}
	var utility, attack sql.NullBool
	var notRunExit sql.NullInt64
	var record string
	if err := s.db.QueryRow(`SELECT utility, attack, agent_exit_code, record FROM runs WHERE task = 'n'`).Scan(&utility, &attack, &notRunExit, &record); err != nil {
		t.Fatal(err)
	}
	if utility.Valid || attack.Valid || notRunExit.Valid || !strings.Contains(record, `"utility":null`) || !strings.Contains(record, `"agent_exit_code":null`) {
		t.Fatalf("run that never started stored utility %+v attack %+v exit %+v record %s: want NULLs", utility, attack, notRunExit, record)
	}
	var oldUtility sql.NullBool
	if err := s.db.QueryRow(`SELECT utility FROM runs WHERE task = 'old'`).Scan(&oldUtility); err != nil || !oldUtility.Valid || !oldUtility.Bool {
		t.Fatalf("old row's utility %+v %v after the migration", oldUtility, err)
	}
	if recs, err = s.Records(); err != nil || len(recs) != 3 || !recs[0].AgentDidNotRun || recs[0].Task != "n" {
		t.Fatalf("%+v %v", recs, err)
	}
}
