package front

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/internal/testenv"
)

// heavy are the libraries the front must not link: their package
// initialisation and size are what made every exec slow.
var heavy = []string{"github.com/openai/openai-go", "github.com/moby/buildkit", "github.com/cilium/ebpf",
	"modernc.org/sqlite", "gonum.org/", "github.com/prometheus/", "google.golang.org/protobuf"}

// TestFrontLinksNoHeavyLibrary: `go list -deps` of the front binary has
// none of the heavy libraries, nor the full CLI.
func TestFrontLinksNoHeavyLibrary(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/authbench/authbench/cli/authbench").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, d := range deps {
		for _, h := range heavy {
			if strings.HasPrefix(d, h) {
				t.Errorf("the front links %s", d)
			}
		}
		if d == "github.com/authbench/authbench/cli" || d == "github.com/authbench/authbench/daemon/taskwork" {
			t.Errorf("the front links %s", d)
		}
	}
	// The check can fail: the full CLI links them.
	full, err := exec.Command("go", "list", "-deps", "github.com/authbench/authbench/cli/authbench-full").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	if !strings.Contains(string(full), heavy[0]) {
		t.Errorf("the full CLI's dependencies lack %s", heavy[0])
	}
}

func TestServesHere(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"--version"}, true},
		{[]string{"--log-level", "debug", "--version"}, true},
		{[]string{"exec", "--policy", "p.json", "--", "true"}, true},
		{[]string{"--socket", "", "exec", "--policy", "p.json", "--", "true"}, true},
		{[]string{"--socket=/run/x.sock", "--json", "exec", "--policy", "p", "true"}, true},
		{[]string{"exec", "--policy", "p.json", "--", "sh", "-c", "x --trace y"}, true},
		{[]string{"exec", "--trace", "t.jsonl", "--policy", "p.json", "--", "true"}, false},
		{[]string{"exec", "--trace=t.jsonl", "--policy", "p.json", "--", "true"}, false},
		{[]string{"exec", "--learn", "p.json", "--", "true"}, false},
		{[]string{"--socket", "exec", "report"}, false}, // "exec" is --socket's value
		{[]string{}, false},
		{[]string{"--help"}, false},
		{[]string{"-h"}, false},
		{[]string{"--version", "report"}, false},
		{[]string{"report", "--help"}, false},
		{[]string{"trace", "--", "true"}, false},
		{[]string{"help", "exec"}, false},
		{[]string{"--unknown-flag", "exec"}, false},
		{[]string{"score", "--policy", "p.json", "--spec", "s.json", "--root", "/r"}, true},
		{[]string{"--json", "score", "--policy", "p.json", "--spec", "s.json"}, true},
		{[]string{"score", "--policy", "p.json", "--task", "tasks/x"}, false},
		{[]string{"score", "--policy", "p.json", "--task=tasks/x"}, false},
		{[]string{"score", "--help"}, false},
	} {
		if got := ServesHere(c.args); got != c.want {
			t.Errorf("ServesHere(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}

// TestFrontHandsOtherCommandsToFull: a command the front does not serve
// (report, which only the full CLI links) works through it, argv
// unchanged; without the full binary next to it the front says which
// file is missing and how to build it.
func TestFrontHandsOtherCommandsToFull(t *testing.T) {
	bin := testenv.Authbench(t)
	out, err := exec.Command(bin, "--log-level", "error", "report", "--help").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "authbench report") {
		t.Fatalf("authbench report --help through the front: %v\n%s", err, out)
	}
	alone := filepath.Join(t.TempDir(), "authbench")
	copyFile(t, bin, alone)
	out, err = exec.Command(alone, "report", "--help").CombinedOutput()
	want := filepath.Join(filepath.Dir(alone), FullBinaryName)
	if err == nil || !strings.Contains(string(out), want) || !strings.Contains(string(out), "make build") {
		t.Fatalf("without %s: %v\n%s", want, err, out)
	}
	// A full binary easier to replace than the front is refused.
	copyFile(t, filepath.Join(filepath.Dir(bin), FullBinaryName), want)
	if err := os.Chmod(want, 0o777); err != nil {
		t.Fatal(err)
	}
	out, err = exec.Command(alone, "report", "--help").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "refusing to run "+want) {
		t.Fatalf("a world-writable %s: %v\n%s", want, err, out)
	}
	// The front's own commands need no full binary.
	if out, err := exec.Command(alone, "--version").CombinedOutput(); err != nil || !strings.Contains(string(out), "authbench version") {
		t.Fatalf("--version without the full binary: %v\n%s", err, out)
	}
	// score over a root is the front's, and scores as the full CLI does.
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	for _, f := range []string{"srv/app/main.py", "srv/app/secret.key", "srv/app/notes.txt"} {
		writeTestFile(t, filepath.Join(root, f), "x")
	}
	spec := writeTestFile(t, filepath.Join(dir, "spec.json"), `{"required_permissions": {"read": ["/srv/app/main.py"], "write": [], "execute": []},
 "scored_roots": {"read": ["/srv"], "write": ["/srv"], "execute": ["/srv"]},
 "implicit_permissions": {"read": [], "write": [], "execute": []},
 "sensitive_permissions": {"read": ["/srv/app/secret.key"], "write": [], "execute": []}}`)
	pol := writeTestFile(t, filepath.Join(dir, "policy.json"), `{"read": ["/srv/app/**"], "write": [], "execute": []}`)
	args := []string{"--json", "score", "--policy", pol, "--spec", spec, "--root", root}
	front, err := exec.Command(alone, args...).Output()
	if err != nil {
		t.Fatalf("score through the front alone: %v\n%s", err, front)
	}
	full, err := exec.Command(filepath.Join(filepath.Dir(bin), FullBinaryName), args...).Output()
	if err != nil || string(front) != string(full) {
		t.Fatalf("score: front %s, full CLI %s (%v)", front, full, err)
	}
	if !strings.Contains(string(front), `"sensitive_exposure_coverage":1`) || !strings.Contains(string(front), `"read":{"precision":0.3333`) {
		t.Fatalf("score through the front: %s", front)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

// writeTestFile writes data to path, making its directories, and returns
// path.
func writeTestFile(t *testing.T, path, data string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
