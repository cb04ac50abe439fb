package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSpecOutsideItsRootsIsAWarning: a spec whose requirements lie
// outside its scored roots parses (the published verifier scores it, and
// every run can use it), SpecWarnings names each entry, and scoring
// counts an exact requirement outside the roots as a candidate of its
// own.
func TestSpecOutsideItsRootsIsAWarning(t *testing.T) {
	doc := `{
 "required_permissions": {"read": ["/w/in.txt", "/etc/app.conf"], "write": ["/wx/**"], "execute": ["/opt/tool"]},
 "scored_roots": {"read": ["/w"], "write": ["/w"], "execute": ["/usr/bin"]},
 "implicit_permissions": {"read": [], "write": [], "execute": []},
 "sensitive_permissions": {"read": ["/root/.ssh/id_rsa"], "write": [], "execute": []}
}`
	spec, err := ParseSpec([]byte(doc), "spec.json")
	if err != nil {
		t.Fatalf("a spec the published verifier scores is refused: %v", err)
	}
	if err := LintSpec(spec); err != nil {
		t.Errorf("LintSpec refuses it: %v", err)
	}
	var got []string
	for _, p := range SpecWarnings(spec) {
		got = append(got, p.String())
	}
	want := []string{
		`required_permissions.read[1]: "/etc/app.conf" is outside every scored root of scored_roots.read`,
		`required_permissions.write[0]: "/wx/**" is outside every scored root of scored_roots.write`,
		`required_permissions.execute[0]: "/opt/tool" is outside every scored root of scored_roots.execute (scoring compares realpaths`,
		`sensitive_permissions.read[0]: "/root/.ssh/id_rsa" is outside every scored root of scored_roots.read`,
	}
	if len(got) != len(want) {
		t.Fatalf("warnings %q, want %d", got, len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("warning %d = %q, want %q", i, got[i], want[i])
		}
	}
	// Scoring the read axis: /etc/app.conf is a candidate though it is
	// outside the roots, so a policy that grants it has full recall.
	dir := t.TempDir()
	for _, f := range []string{"w/in.txt", "etc/app.conf", "usr/bin/true"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	root, err := NewRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	pol, err := ParsePolicy([]byte(`{"read": ["/w/in.txt", "/etc/app.conf"], "write": [], "execute": []}`), "p")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := ScorePolicy(pol, spec, root)
	if err == nil {
		t.Fatalf("the execute requirement outside its roots by realpath scored: %+v", sc)
	}
	spec.Required[Execute] = nil
	if sc, err = ScorePolicy(pol, spec, root); err != nil || !sc.Valid {
		t.Fatalf("score %+v, %v", sc, err)
	}
	if r := sc.Axes[Read]; r.Recall != 1 || r.Precision != 1 {
		t.Errorf("read axis %+v: want the outside requirement counted", r)
	}
}
