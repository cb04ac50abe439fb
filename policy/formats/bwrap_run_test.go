package formats

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/policy"
)

// TestBwrapExportConfines runs a command under the bwrap arguments
// exported from a policy on this host: it reads and writes what the
// policy grants and nothing else.
func TestBwrapExportConfines(t *testing.T) {
	testenv.NeedTools(t, "bwrap")
	dir, err := os.MkdirTemp("/var/tmp", "authbench-bwrap-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for name, content := range map[string]string{"allowed": "allowed content\n", "secret": "secret content\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	pol := mustPolicy(t, `{"read":["`+dir+`/allowed"],"write":["`+dir+`/out/**"],"execute":["/usr/bin/dash","/usr/bin/cat"]}`)
	root, err := policy.NewRoot("/")
	if err != nil {
		t.Fatal(err)
	}
	out, err := Export(pol, Bwrap, ExportOptions{Root: root, Baseline: policy.DefaultBaseline()})
	if err != nil {
		t.Fatal(err)
	}
	script := "cat " + dir + "/allowed; cat " + dir + "/secret && echo LEAKED; echo made > " + dir + "/out/new && echo WROTE-OUT; " +
		"echo x > " + dir + "/elsewhere && echo WROTE-ELSEWHERE; ls /etc >/dev/null 2>&1 && echo SAW-ETC; true"
	args := append(append([]string(nil), out.Args[1:]...), "/usr/bin/dash", "-c", script)
	cmd := exec.Command(out.Args[0], args...)
	got, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bwrap %s: %v\n%s", strings.Join(args, " "), err, got)
	}
	text := string(got)
	for _, want := range []string{"allowed content", "WROTE-OUT"} {
		if !strings.Contains(text, want) {
			t.Fatalf("%q missing: the policy's grant did not carry over\n%s", want, text)
		}
	}
	for _, bad := range []string{"secret content", "LEAKED", "WROTE-ELSEWHERE", "SAW-ETC"} {
		if strings.Contains(text, bad) {
			t.Fatalf("%q: bwrap let the command past the policy\n%s", bad, text)
		}
	}
	if data, err := os.ReadFile(filepath.Join(dir, "out", "new")); err != nil || string(data) != "made\n" {
		t.Fatalf("the write did not reach the host's directory: %q %v", data, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "elsewhere")); !os.IsNotExist(err) {
		t.Fatalf("a write outside the policy reached the host: %v", err)
	}
}
