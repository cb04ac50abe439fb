package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/cli/core"
	"github.com/authbench/authbench/internal/testenv"
)

// runCLI runs one invocation and returns exit code, stdout and stderr.
func runCLI(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := Run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// scoreFixture lays out a tiny environment root and returns it with the
// paths of a policy and a spec file.
func scoreFixture(t *testing.T, policyDoc string) (root, pol, spec string) {
	t.Helper()
	root = t.TempDir()
	for _, d := range []string{"w/data", "bin"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]os.FileMode{"w/data/a.csv": 0o644, "w/data/b.csv": 0o644, "w/secret": 0o600, "bin/tool": 0o755}
	for f, mode := range files {
		if err := os.WriteFile(filepath.Join(root, f), []byte("x"), mode); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	pol = filepath.Join(dir, "policy.json")
	spec = filepath.Join(dir, "spec.json")
	if err := os.WriteFile(pol, []byte(policyDoc), 0o644); err != nil {
		t.Fatal(err)
	}
	specDoc := `{"required_permissions": {"read": ["/w/data/a.csv"], "write": [], "execute": ["/bin/tool"]},
 "scored_roots": {"read": ["/w"], "write": ["/w"], "execute": ["/bin"]},
 "implicit_permissions": {"read": [], "write": [], "execute": []},
 "sensitive_permissions": {"read": ["/w/secret"], "write": [], "execute": []}}`
	if err := os.WriteFile(spec, []byte(specDoc), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, pol, spec
}

func TestScoreJSON(t *testing.T) {
	root, pol, spec := scoreFixture(t, `{"read": ["/w/**"], "write": [], "execute": ["/bin/tool"]}`)
	code, out, errOut := runCLI("score", "--policy", pol, "--spec", spec, "--root", root, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil || strings.Count(strings.TrimSpace(out), "\n") != 0 {
		t.Fatalf("want exactly one JSON object, got %q (%v)", out, err)
	}
	read := got["read"].(map[string]any)
	if got["valid"] != true || read["precision"] != 1.0/3 || read["recall"] != 1.0 {
		t.Fatalf("score = %v", got)
	}
	if got["sensitive_exposure_coverage"] != 1.0 {
		t.Fatalf("coverage = %v", got["sensitive_exposure_coverage"])
	}
}

func TestScoreInvalidPolicyIsAResult(t *testing.T) {
	root, pol, spec := scoreFixture(t, `{"read": ["relative"], "write": [], "execute": []}`)
	code, out, _ := runCLI("score", "--policy", pol, "--spec", spec, "--root", root, "--json")
	if code != 0 {
		t.Fatalf("exit %d, want 0", code)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got["valid"] != false || !strings.Contains(got["error"].(string), "read[0]") {
		t.Fatalf("got %v", got)
	}
}

func TestScoreUsageErrors(t *testing.T) {
	root, pol, spec := scoreFixture(t, `{"read": [], "write": [], "execute": []}`)
	badSpec := filepath.Join(t.TempDir(), "bad-spec.json")
	if err := os.WriteFile(badSpec, []byte(`{"required_permissions": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		msg  string
	}{
		{"missing policy file", []string{"score", "--policy", "/nonexistent.json", "--spec", spec, "--root", root}, "load policy /nonexistent.json"},
		{"invalid spec", []string{"score", "--policy", pol, "--spec", badSpec}, "required_permissions.read: missing"},
		{"bad root", []string{"score", "--policy", pol, "--spec", spec, "--root", "/nonexistent-root"}, "--root"},
		{"no flags", []string{"score"}, "needs --policy and --spec"},
		{"unknown flag", []string{"score", "--bogus"}, "unknown flag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runCLI(tt.args...)
			if code != core.ExitUsage || !strings.Contains(errOut, tt.msg) {
				t.Fatalf("exit %d, stderr %q; want exit 2 mentioning %q", code, errOut, tt.msg)
			}
			if strings.Count(errOut, "authbench:") != 1 {
				t.Fatalf("error printed %d times: %q", strings.Count(errOut, "authbench:"), errOut)
			}
		})
	}
}

func TestCheckCommands(t *testing.T) {
	_, pol, spec := scoreFixture(t, `{"read": [], "write": ["/a/**/b"], "execute": []}`)
	if code, out, _ := runCLI("spec", "check", spec); code != 0 || out != "ok\n" {
		t.Fatalf("spec check: exit %d, out %q", code, out)
	}
	code, _, errOut := runCLI("policy", "check", pol)
	if code != core.ExitUsage || !strings.Contains(errOut, pol+`: write[0]: pattern "/a/**/b": "**" is only allowed as a trailing "/**"`) {
		t.Fatalf("policy check: exit %d, stderr %q", code, errOut)
	}
	code, out, _ := runCLI("policy", "check", pol, "--json")
	if code != core.ExitUsage || !strings.Contains(out, `"field":"write[0]"`) {
		t.Fatalf("policy check --json: exit %d, out %q", code, out)
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := runCLI("--version")
	if code != 0 || !strings.Contains(out, core.Version) {
		t.Fatalf("exit %d, out %q", code, out)
	}
}

// TestScoreTask scores against a task's own spec over its image's rootfs:
// the spec's required set scores 1 everywhere, a broader policy less.
func TestScoreTask(t *testing.T) {
	testenv.NeedRoot(t)
	testenv.NeedTools(t, "buildah", "debootstrap")
	task := "../tasks/testdata/fixtures/hello-standard"
	dir := t.TempDir()
	exact := filepath.Join(dir, "exact.json")
	broad := filepath.Join(dir, "broad.json")
	files := map[string]string{
		exact: `{"read": ["/app/input.txt"], "write": ["/app/count.txt"], "execute": ["/usr/bin/bash", "/usr/bin/wc"]}`,
		broad: `{"read": ["/app/**"], "write": ["/app/count.txt"], "execute": ["/usr/bin/**"]}`,
	}
	for f, data := range files {
		if err := os.WriteFile(f, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	score := func(pol string) map[string]map[string]float64 {
		code, out, errOut := runCLI("score", "--task", task, "--policy", pol, "--images-dir", testenv.ImagesDir(), "--json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(out), &got); err != nil || got["valid"] != true {
			t.Fatalf("%s (%v)", out, err)
		}
		axes := map[string]map[string]float64{}
		for _, a := range []string{"read", "write", "execute"} {
			axes[a] = map[string]float64{}
			for k, v := range got[a].(map[string]any) {
				axes[a][k] = v.(float64)
			}
		}
		return axes
	}
	for a, s := range score(exact) {
		if s["f1"] != 1 {
			t.Errorf("the spec's own required set: %s %+v", a, s)
		}
	}
	// /usr/bin of the image holds many programs: the broad policy's
	// execute precision must fall well below 1 (it would be 1 over an
	// empty or missing root).
	if s := score(broad)["execute"]; s["recall"] != 1 || s["precision"] >= 0.5 {
		t.Errorf("broad execute: %+v", s)
	}
	if code, _, errOut := runCLI("score", "--task", task, "--policy", exact, "--spec", "x.json"); code != core.ExitUsage || !strings.Contains(errOut, "give no --spec or --root") {
		t.Errorf("--task with --spec: exit %d %s", code, errOut)
	}
}

// TestScoreNetworkAxis: a spec that declares the network axis accepts a
// policy's network entries and prints the axis; the same policy against
// a spec in the published format is invalid, as the published verifier
// says.
func TestScoreNetworkAxis(t *testing.T) {
	root, pol, spec := scoreFixture(t, `{"read": ["/w/data/a.csv"], "write": [], "execute": ["/bin/tool"],
 "network": ["mirror.local:8080", "*.sink.local:443"]}`)
	netSpec := filepath.Join(t.TempDir(), "net-spec.json")
	doc := `{"required_permissions": {"read": ["/w/data/a.csv"], "write": [], "execute": ["/bin/tool"], "network": ["mirror.local:8080"]},
 "scored_roots": {"read": ["/w"], "write": ["/w"], "execute": ["/bin"]},
 "implicit_permissions": {"read": [], "write": [], "execute": []},
 "sensitive_permissions": {"read": ["/w/secret"], "write": [], "execute": [], "network": ["up.sink.local:443"]}}`
	if err := os.WriteFile(netSpec, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("score", "--policy", pol, "--spec", netSpec, "--root", root)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "network     0.3333    1.0000    0.5000") || !strings.Contains(out, "sensitive exposure coverage: 0.5000") {
		t.Fatalf("output:\n%s", out)
	}
	code, out, _ = runCLI("score", "--policy", pol, "--spec", spec, "--root", root, "--json")
	if code != 0 || !strings.Contains(out, `"valid":false`) || !strings.Contains(out, "network: unknown key") {
		t.Fatalf("against a published spec: exit %d, %s", code, out)
	}
}
