package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/policy"
)

// TestGrantGuardRefusesADirectoryOverASensitiveFile: the denial of a
// listing of /srv/config, where a sensitive key lies, never becomes the
// grant "read /srv/config" (enforced as everything below it); nor does a
// read of a file missing at launch whose nearest ancestor holds the key;
// a file beside it does. The refusal says why.
func TestGrantGuardRefusesADirectoryOverASensitiveFile(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"srv/config/key.pem", "srv/config/app.ini", "srv/data/in.txt"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := policy.NewRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := policy.ParseSpec([]byte(`{"required_permissions":{"read":[],"write":[],"execute":[]},
		"scored_roots":{"read":["/srv"],"write":["/srv"],"execute":[]},
		"implicit_permissions":{"read":[],"write":[],"execute":[]},
		"sensitive_permissions":{"read":["/srv/config/key.pem"],"write":[],"execute":[]}}`), "spec")
	if err != nil {
		t.Fatal(err)
	}
	g := &grantGuard{root: root, spec: spec, sem: policy.SemanticsPublished, seen: map[grant]bool{}}
	in := []grant{{policy.Read, "/srv/config"}, {policy.Read, "/srv/config/new.txt"}, {policy.Read, "/srv/config/app.ini"}, {policy.Read, "/srv/data"}}
	got := g.filter(in)
	if len(got) != 2 || got[0] != in[2] || got[1] != in[3] {
		t.Fatalf("kept %v, want app.ini and /srv/data", got)
	}
	if len(g.refused) != 2 || !strings.Contains(g.refused[0], `read /srv/config not granted: under published semantics it grants sensitive read /srv/config/key.pem`) {
		t.Errorf("refused %q", g.refused)
	}
}
