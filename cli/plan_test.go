package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/cli/core"
)

// TestPolicyPlanSymlinksAndSemantics: `policy plan` prints a rule reached
// through a planted symlink as wider with its link and target and warns
// loudly; --refuse-symlinks makes it an error; --semantics published
// compiles the published launcher's rules; a bad --semantics is a usage
// error.
func TestPolicyPlanSymlinksAndSemantics(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"s", "w"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, dir, "s/k", "secret")
	if err := os.Chmod(filepath.Join(dir, "w"), 0o1777); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/s/k", filepath.Join(dir, "w/r.txt")); err != nil {
		t.Fatal(err)
	}
	pol := writeFile(t, dir, "p.json", `{"read":[],"write":["/w/r.txt"],"execute":[]}`)
	base := []string{"policy", "plan", "--policy", pol, "--root", dir, "--baseline", "none"}

	code, out, stderr := runCLI(base...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "semantics precise") || !strings.Contains(out, "symlink-target on /s/k (link /w/r.txt → /s/k)") {
		t.Errorf("human output does not show the symlinked target:\n%s", out)
	}
	if !strings.Contains(stderr, "WARNING: write /w/r.txt: THE SYMLINK /W/R.TXT -> /S/K MAY HAVE BEEN PLANTED") {
		t.Errorf("no loud planted-link warning: %q", stderr)
	}

	code, out, stderr = runCLI(append(base, "--json")...)
	var doc struct {
		Plan struct {
			Semantics string `json:"semantics"`
			Wider     []struct {
				Kind, Link, Target string
			} `json:"wider"`
		} `json:"plan"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("exit %d: %s %s", code, out, stderr)
	}
	if doc.Plan.Semantics != "precise" || len(doc.Plan.Wider) != 1 || doc.Plan.Wider[0].Link != "/w/r.txt" || doc.Plan.Wider[0].Target != "/s/k" {
		t.Errorf("json plan = %+v", doc.Plan)
	}

	code, _, stderr = runCLI(append(base, "--refuse-symlinks")...)
	if code != core.ExitUsage || !strings.Contains(stderr, "reaches /s/k through the symlink /w/r.txt") {
		t.Errorf("--refuse-symlinks: exit %d, %q", code, stderr)
	}

	code, out, stderr = runCLI(append(base, "--semantics", "published")...)
	if code != 0 || !strings.Contains(out, "semantics published") || !strings.Contains(out, "write-parent-directory on /w") {
		t.Errorf("--semantics published: exit %d\n%s%s", code, out, stderr)
	}
	if code, _, stderr := runCLI(append(base, "--semantics", "loose")...); code != core.ExitUsage || !strings.Contains(stderr, "--semantics") {
		t.Errorf("--semantics loose: exit %d, %q", code, stderr)
	}
}
