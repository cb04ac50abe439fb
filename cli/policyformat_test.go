package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPolicyExportImport(t *testing.T) {
	dir := t.TempDir()
	pol := filepath.Join(dir, "p.json")
	if err := os.WriteFile(pol, []byte(`{"read":["/srv/**"],"write":["/srv/out/**"],"execute":["/usr/bin/python3"],"network":["pypi.org:443"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI("--json", "policy", "export", "--format", "srt", pol)
	if code != 0 {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	var exp struct {
		Text     string
		Warnings []struct{ Axis, Effect string }
	}
	if err := json.Unmarshal([]byte(out), &exp); err != nil || !strings.Contains(exp.Text, `"/srv/out"`) || len(exp.Warnings) == 0 {
		t.Fatalf("export --json: %v\n%s", err, out)
	}
	settings := filepath.Join(dir, "srt.json")
	if err := os.WriteFile(settings, []byte(exp.Text), 0o644); err != nil {
		t.Fatal(err)
	}
	back := filepath.Join(dir, "back.json")
	code, _, stderr = runCLI("policy", "import", "--format", "srt", "--out", back, settings)
	if code != 0 || !strings.Contains(stderr, "warning: same execute") {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	if code, _, stderr = runCLI("policy", "check", back); code != 2 || !strings.Contains(stderr, "network") {
		// The imported policy names hosts: valid for a task whose spec
		// declares the network axis, an unknown key for the published format.
		t.Fatalf("check of an imported policy with hosts: exit %d: %s", code, stderr)
	}
	code, _, stderr = runCLI("policy", "import", "--format", "srt", "--no-network", "--out", back, settings)
	if code != 0 || !strings.Contains(stderr, "left out (--no-network)") {
		t.Fatalf("import --no-network: exit %d: %s", code, stderr)
	}
	if code, out, stderr = runCLI("policy", "check", back); code != 0 || strings.TrimSpace(out) != "ok" {
		t.Fatalf("check of an imported policy: exit %d: %s %s", code, out, stderr)
	}
	for _, args := range [][]string{
		{"policy", "export", "--format", "docker", pol},
		{"policy", "import", "--format", "bwrap", settings},
		{"policy", "import", "--format", "codex", pol},
		{"policy", "export", "--format", "bwrap", filepath.Join(dir, "missing.json")},
	} {
		if code, _, stderr := runCLI(args...); code != 2 {
			t.Fatalf("%v: exit %d, want 2: %s", args, code, stderr)
		}
	}
}
