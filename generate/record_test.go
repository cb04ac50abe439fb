package generate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/taskrun"
	"github.com/authbench/authbench/tasks"
)

// TestOutFileIsThePolicy: a valid answer wrapped in a fenced block and
// chatter is written as the policy it parsed to, which the policy parser
// of every reader accepts as it is; an invalid answer is written as
// given.
func TestOutFileIsThePolicy(t *testing.T) {
	raw := "Here is the policy:\n```json\n{\"read\": [\"/app//in.txt\"], \"write\": [], \"execute\": [\"/bin/sh\"]}\n```\nDone.\n"
	var rec runapi.GenerationRecord
	rec.PolicyRaw = raw
	pol, err := policy.ParseAnswer(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := setPolicy(&rec, pol); err != nil {
		t.Fatal(err)
	}
	out := rec.OutFile()
	if _, err := policy.ParsePolicy([]byte(raw), "raw"); err == nil {
		t.Fatal("the raw answer should not parse as a policy file (the case this guards)")
	}
	got, err := policy.ParsePolicy(out, "out")
	if err != nil {
		t.Fatalf("--out file %q: %v", out, err)
	}
	if r := got.Get(policy.Read); len(r) != 1 || r[0].String() != "/app/in.txt" {
		t.Errorf("--out file read %v, want the normalised /app/in.txt", r)
	}
	if rec.PolicyRaw != raw {
		t.Errorf("the record's raw answer changed: %q", rec.PolicyRaw)
	}
	bad := runapi.GenerationRecord{PolicyRaw: "no policy here\n"}
	if string(bad.OutFile()) != bad.PolicyRaw {
		t.Errorf("an invalid answer is written as given, got %q", bad.OutFile())
	}
}

// TestUncarriedGenerationRecordsItsKind: a generation that cannot be
// carried out (an unknown generator) is an error whose kind the record
// keeps beside its message, and generation.json holds both.
func TestUncarriedGenerationRecordsItsKind(t *testing.T) {
	dir := t.TempDir()
	task := &tasks.Task{Name: "t"}
	rec, err := Run(context.Background(), Options{Generator: "claude", Run: taskrun.Options{Task: task, Dir: dir}})
	if err == nil || rec == nil || rec.Valid || rec.ErrorKind != runapi.ErrorTask || !strings.Contains(rec.Error, "unknown generator") {
		t.Fatalf("record %+v, err %v", rec, err)
	}
	data, err := os.ReadFile(filepath.Join(dir, runapi.FileGeneration))
	if err != nil || !strings.Contains(string(data), `"error_kind": "task"`) {
		t.Errorf("generation.json %s (%v)", data, err)
	}
}
