package bench

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/trial"
)

// fakeShard writes the out dir of shard sh of a bench with the given
// runs (trial directories with one log each) and a summary of total runs.
func fakeShard(t *testing.T, dir string, sh Shard, total int, recs ...trial.Record) {
	t.Helper()
	cfg := Config{TasksDir: "/srv/tasks", Sources: []Source{{Name: "spec"}}, Agent: "oracle", Trials: 2, Parallel: 1,
		Shard: sh, Semantics: "published", Out: dir}
	d, err := safefile.OpenOutDir(dir, os.Geteuid())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := claimOutDir(&cfg, d, "test"); err != nil {
		t.Fatal(err)
	}
	s, err := OpenStore(d)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range recs {
		r := recs[i]
		if err := d.MkdirAll(filepath.Join(r.Dir, "agent")); err != nil {
			t.Fatal(err)
		}
		if err := d.WriteFile(filepath.Join(r.Dir, "agent", "log.txt"), []byte("log of "+r.Dir), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := s.PutTrial(&r, r.Started(), "/srv/tasks/"+r.Task); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now().UTC()
	sum := Summary{ID: filepath.Base(dir), StartedAt: now.Add(-time.Minute), FinishedAt: &now, NTotal: total, Skipped: []trial.SkippedTask{}}
	if err := writeJSONFile(d, JobResultFile, sum); err != nil {
		t.Fatal(err)
	}
}

func mergeRecord(task string, n int, utility bool) trial.Record {
	r := sampleRecord(task, n)
	no := false
	r.Utility, r.Attack, r.TracedExposure, r.Classes, r.Primary = utility, &no, false, nil, ""
	r.Dir = Key{Task: task, Source: r.Source, Agent: r.Agent, Trial: n}.Dir()
	return r
}

func keysOf(recs []trial.Record) []string {
	var out []string
	for i := range recs {
		out = append(out, keyOf(&recs[i]).String())
	}
	sort.Strings(out)
	return out
}

func TestMergeShardsIsOneBenchAndIdempotent(t *testing.T) {
	base := t.TempDir()
	s0, s1, out := filepath.Join(base, "s0"), filepath.Join(base, "s1"), filepath.Join(base, "merged")
	fakeShard(t, s0, Shard{Index: 0, Count: 2}, 2, mergeRecord("a", 0, true), mergeRecord("a", 1, false))
	fakeShard(t, s1, Shard{Index: 1, Count: 2}, 2, mergeRecord("b", 0, true), mergeRecord("b", 1, true))
	sum, err := Merge(out, []string{s0, s1}, "test")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Added != 4 || sum.Kept != 0 || len(sum.Missing) != 0 || sum.Summary.NTotal != 4 || sum.Summary.Stats.NTrials != 4 ||
		sum.Summary.Stats.NFailed != 1 || sum.Summary.FinishedAt == nil {
		t.Fatalf("merge: %+v", sum)
	}
	got, err := LoadRecords(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := LoadRecords(s0, s1)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("merged records differ from the shards'\n%v\n%v", keysOf(got), keysOf(want))
	}
	log, err := os.ReadFile(filepath.Join(out, mergeRecord("b", 1, true).Dir, "agent", "log.txt"))
	if err != nil || string(log) != "log of "+mergeRecord("b", 1, true).Dir {
		t.Fatalf("trial files not copied: %q %v", log, err)
	}
	settings, err := LoadSettings(out)
	if err != nil || settings.Shard != "0/1" || settings.Agent != "oracle" {
		t.Fatalf("merged settings %+v %v", settings, err)
	}
	again, err := Merge(out, []string{s0, s1}, "test")
	if err != nil {
		t.Fatal(err)
	}
	if again.Added != 0 || again.Kept != 4 {
		t.Fatalf("merge again: %+v", again)
	}
	if got2, err := LoadRecords(out); err != nil || !reflect.DeepEqual(got2, got) {
		t.Fatalf("merge again changed the records: %v", err)
	}
}

// TestMergeResumedShard: a shard whose array task failed is merged
// later; a run stored with an error is replaced by its finished re-run.
func TestMergeResumedShard(t *testing.T) {
	base := t.TempDir()
	s0, s1, out := filepath.Join(base, "s0"), filepath.Join(base, "s1"), filepath.Join(base, "merged")
	failed := mergeRecord("a", 1, false)
	failed.Error = "daemon gone"
	fakeShard(t, s0, Shard{Index: 0, Count: 2}, 2, mergeRecord("a", 0, true), failed)
	// Its array task was cancelled: the summary has no finished_at.
	d, err := safefile.OpenOutDir(s0, os.Geteuid())
	if err != nil {
		t.Fatal(err)
	}
	if err := writeJSONFile(d, JobResultFile, Summary{ID: "s0", StartedAt: time.Now().UTC(), NTotal: 2, Skipped: []trial.SkippedTask{}}); err != nil {
		t.Fatal(err)
	}
	d.Close()
	sum, err := Merge(out, []string{s0}, "test")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sum.Missing, []int{1}) || !reflect.DeepEqual(sum.Unfinished, []string{s0}) || sum.Summary.FinishedAt != nil || sum.Summary.Stats.NErrors != 1 {
		t.Fatalf("partial merge: %+v", sum)
	}
	// The shard resumed: its errored run finished.
	fakeShard(t, s0, Shard{Index: 0, Count: 2}, 2, mergeRecord("a", 1, true))
	fakeShard(t, s1, Shard{Index: 1, Count: 2}, 1, mergeRecord("b", 0, true))
	sum, err = Merge(out, []string{s0, s1}, "test")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Replaced != 1 || sum.Added != 1 || sum.Kept != 1 || len(sum.Missing) != 0 || sum.Summary.Stats.NErrors != 0 || sum.Summary.Stats.NTrials != 3 {
		t.Fatalf("merge after resume: %+v", sum)
	}
}

func TestMergeRefusesOtherSettingsAndConflicts(t *testing.T) {
	base := t.TempDir()
	s0, s1 := filepath.Join(base, "s0"), filepath.Join(base, "s1")
	fakeShard(t, s0, Shard{Index: 0, Count: 2}, 1, mergeRecord("a", 0, true))
	fakeShard(t, s1, Shard{Index: 1, Count: 3}, 1, mergeRecord("b", 0, true))
	var mismatch *ShardMismatchError
	if _, err := Merge(filepath.Join(base, "m1"), []string{s0, s1}, "test"); !errors.As(err, &mismatch) || mismatch.Setting != "--shard" {
		t.Fatalf("shards of 2 and 3: %v", err)
	}
	s2 := filepath.Join(base, "s2")
	fakeShard(t, s2, Shard{Index: 1, Count: 2}, 1, mergeRecord("b", 0, true))
	d, _ := safefile.OpenOutDir(s2, os.Geteuid())
	cfg := Config{TasksDir: "/srv/tasks", Sources: []Source{{Name: "trace"}}, Agent: "oracle", Trials: 2, Shard: Shard{Index: 1, Count: 2}, Semantics: "published", Out: s2}
	jc := jobConfig{Authbench: cfg.Settings()}
	if err := writeJSONFile(d, JobConfigFile, jc); err != nil {
		t.Fatal(err)
	}
	d.Close()
	if _, err := Merge(filepath.Join(base, "m2"), []string{s0, s2}, "test"); !errors.As(err, &mismatch) || mismatch.Setting != "--sources" {
		t.Fatalf("shards of other sources: %v", err)
	}
	// The same run, finished twice with different results.
	s3 := filepath.Join(base, "s3")
	fakeShard(t, s3, Shard{Index: 0, Count: 2}, 1, mergeRecord("a", 0, false))
	var conflict *ConflictError
	if _, err := Merge(filepath.Join(base, "m3"), []string{s0, s3}, "test"); !errors.As(err, &conflict) || conflict.Run.Task != "a" {
		t.Fatalf("conflicting runs: %v", err)
	}
}

// TestMergeCopiesNoLinkOrFIFO: a trial directory of a shard holding a
// link to a root-only file and a FIFO: neither is followed nor opened,
// both are named as not copied.
func TestMergeCopiesNoLinkOrFIFO(t *testing.T) {
	base := t.TempDir()
	s0, out := filepath.Join(base, "s0"), filepath.Join(base, "merged")
	r := mergeRecord("a", 0, true)
	fakeShard(t, s0, Shard{Index: 0, Count: 1}, 1, r)
	secret := filepath.Join(base, "secret")
	if err := os.WriteFile(secret, []byte("host secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(s0, r.Dir, "agent", "stolen.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(base, filepath.Join(s0, r.Dir, "agent", "dirlink")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(s0, r.Dir, "agent", "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	var sum *MergeSummary
	go func() {
		var err error
		sum, err = Merge(out, []string{s0}, "test")
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("merge blocked on a FIFO")
	}
	if len(sum.Skipped) != 3 {
		t.Fatalf("skipped %v, want the two links and the FIFO", sum.Skipped)
	}
	for _, name := range []string{"stolen.txt", "dirlink", "fifo"} {
		if _, err := os.Lstat(filepath.Join(out, r.Dir, "agent", name)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s copied into the merged dir: %v", name, err)
		}
	}
}
