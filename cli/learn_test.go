package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/policy"
)

// TestExecLearn: exec --learn writes the policy a command needed — what
// it read, wrote and ran, nothing else of its directory — and verifies it
// by a confined replay; under the learnt policy the file it did not use
// stays out of reach.
func TestExecLearn(t *testing.T) {
	testenv.NeedRoot(t)
	requireLandlockCLI(t)
	bin := benchBinary(t)
	dir, err := os.MkdirTemp("/var/tmp", "authbench-learn-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	writeFile(t, dir, "in.txt", "input\n")
	writeFile(t, dir, "secret.txt", "not used\n")
	out := filepath.Join(t.TempDir(), "learnt.json")
	script := "cat " + dir + "/in.txt > " + dir + "/out.txt && echo done"
	code, stdout, stderr := runBinary(t, bin, "", "exec", "--learn", out, "--runs", "2", "--", "/bin/sh", "-c", script)
	if code != 0 || !strings.Contains(stdout, "done") || !strings.Contains(stderr, "learn: verified") {
		t.Fatalf("exec --learn: exit %d\n%s\n%s", code, stdout, stderr)
	}
	pol, err := policy.LoadPolicy(out)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, ax := range policy.Axes {
		var list []string
		for _, p := range pol.Get(ax) {
			list = append(list, p.String())
		}
		got[ax.String()] = strings.Join(list, " ")
	}
	want := map[string]string{"read": dir + "/in.txt", "write": dir + "/out.txt", "execute": "/usr/bin/cat /usr/bin/dash"}
	for ax, w := range want {
		if got[ax] != w {
			t.Fatalf("learnt %s: %q, want %q (policy %v)", ax, got[ax], w, got)
		}
	}
	code, _, stderr = runBinary(t, bin, "", "exec", "--policy", out, "--", "/bin/sh", "-c", "cat "+dir+"/secret.txt")
	if code == 0 {
		t.Fatalf("the learnt policy let the command read a file it never used: %s", stderr)
	}
	// A command that does not end alike every time teaches nothing.
	flip := filepath.Join(dir, "flip")
	code, _, stderr = runBinary(t, bin, "", "exec", "--learn", filepath.Join(t.TempDir(), "p.json"), "--runs", "2", "--",
		"/bin/sh", "-c", "if [ -e "+flip+" ]; then exit 3; fi; : > "+flip)
	if code != 1 || !strings.Contains(stderr, "does not end alike") {
		t.Fatalf("a command ending differently: exit %d, %s", code, stderr)
	}
	if code, _, stderr = runBinary(t, bin, "", "exec", "--learn", out, "--runs", "0", "--", "true"); code != 2 || !strings.Contains(stderr, "--runs 0") {
		t.Fatalf("--runs 0: exit %d, %s", code, stderr)
	}
}
