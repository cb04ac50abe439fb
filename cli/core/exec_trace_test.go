package core

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/sandbox"
)

// TestPlanRecordDoesNotFollowSymlink: a symbolic link planted at
// FILE.plan.json (by another user, in a shared directory) is not
// followed: the file it points to is left alone.
func TestPlanRecordDoesNotFollowSymlink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("untouched\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(dir, "trace.jsonl")
	if err := os.Symlink(victim, trace+".plan.json"); err != nil {
		t.Fatal(err)
	}
	err := writePlanRecord(trace, &policy.Plan{Root: "/"}, sandbox.EnforcementFor(0))
	if err == nil {
		t.Error("writing through a planted symlink succeeded")
	}
	if got, _ := os.ReadFile(victim); string(got) != "untouched\n" {
		t.Fatalf("the symlink was followed: victim now %q", got)
	}
}
