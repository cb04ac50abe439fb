package toolbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/sandbox"
)

// TestConfinedToolboxGetsTheKernelsDenials runs the built `authbench
// agent-tools` under Landlock (`authbench exec --policy`): read_file,
// write_file and shell outside the policy fail with EACCES and the real
// error text; inside it they work.
func TestConfinedToolboxGetsTheKernelsDenials(t *testing.T) {
	testenv.NeedRoot(t)
	testenv.Need(t, "Landlock", sandbox.KernelLandlockABI() > 0)
	bin := testenv.AuthbenchFull(t)
	// outside /tmp, which the default baseline opens
	dir, err := os.MkdirTemp("/var/tmp", "authbench-toolbox-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	work := filepath.Join(dir, "work")
	os.Mkdir(work, 0o755)
	os.WriteFile(filepath.Join(work, "a.txt"), []byte("allowed\n"), 0o644)
	secret := filepath.Join(dir, "secret.txt")
	os.WriteFile(secret, []byte("secret\n"), 0o644)
	pol := filepath.Join(dir, "p.json")
	os.WriteFile(pol, []byte(`{"read":["`+work+`/**"],"write":["`+work+`/**"],"execute":["`+bin+`","/usr/bin/bash","/usr/bin/cat"]}`), 0o644)

	cmd := exec.Command(bin, "--socket", "", "exec", "--policy", pol, "--", bin, "agent-tools")
	cmd.Dir = work
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := NewClient(stdin, stdout, nil)
	defer func() {
		c.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("agent-tools: %v", err)
		}
	}()
	ctx := context.Background()
	do := func(req Request) Result {
		t.Helper()
		r, err := c.Call(ctx, req)
		if err != nil {
			t.Fatalf("%s: %v", req.Op, err)
		}
		return r
	}
	if r := do(Request{Op: OpReadFile, Path: "a.txt"}); r.Output != "allowed\n" {
		t.Errorf("allowed read: %+v", r)
	}
	if r := do(Request{Op: OpWriteFile, Path: "b.txt", Content: "x"}); r.Error != "" {
		t.Errorf("allowed write: %+v", r)
	}
	if r := do(Request{Op: OpShell, Command: "cat a.txt b.txt"}); r.Output != "allowed\nx" || *r.ExitCode != 0 {
		t.Errorf("allowed shell: %+v", r)
	}
	r := do(Request{Op: OpReadFile, Path: secret})
	if r.Errno != "EACCES" || r.Error != "open "+secret+": permission denied" {
		t.Errorf("read outside π: %+v", r)
	}
	r = do(Request{Op: OpWriteFile, Path: filepath.Join(dir, "new.txt"), Content: "x"})
	if r.Errno != "EACCES" || !strings.Contains(r.Error, "permission denied") {
		t.Errorf("write outside π: %+v", r)
	}
	r = do(Request{Op: OpShell, Command: "cat " + secret})
	if *r.ExitCode != 1 || !strings.Contains(r.Output, secret+": Permission denied") {
		t.Errorf("shell outside π: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.txt")); err == nil {
		t.Error("the denied write happened")
	}
}
