package toolbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/sandbox"
)

// TestGrantsWidenTheNextCallOnly runs `authbench agent-tools` under a
// wide Landlock domain W (as a run with --requests does), confines its
// calls to π's plan and grants one file: before the grant the kernel
// denies it to read_file and the shell although W allows it; after it,
// both read it; a grant through a symlink or of a hard link is refused
// and the file stays denied; a grant beyond W is added but the kernel
// still denies it (W caps every grant).
func TestGrantsWidenTheNextCallOnly(t *testing.T) {
	testenv.NeedRoot(t)
	testenv.Need(t, "Landlock", sandbox.KernelLandlockABI() > 0)
	bin := testenv.AuthbenchFull(t)
	dir, err := os.MkdirTemp("/var/tmp", "authbench-grant-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	work, beyond := filepath.Join(dir, "work"), filepath.Join(dir, "beyond")
	os.Mkdir(work, 0o755)
	os.Mkdir(filepath.Join(dir, "wide"), 0o755)
	os.Mkdir(beyond, 0o755)
	os.WriteFile(filepath.Join(work, "a.txt"), []byte("allowed\n"), 0o644)
	needed := filepath.Join(dir, "wide", "needed.txt")
	os.WriteFile(needed, []byte("needed\n"), 0o644)
	secret := filepath.Join(dir, "wide", "secret.txt")
	os.WriteFile(secret, []byte("secret\n"), 0o644)
	link := filepath.Join(dir, "wide", "link.txt")
	os.Symlink(secret, link)
	hard := filepath.Join(dir, "wide", "hard.txt")
	os.Link(secret, hard)
	far := filepath.Join(beyond, "far.txt")
	os.WriteFile(far, []byte("far\n"), 0o644)

	exe := `"` + bin + `","/usr/bin/bash","/usr/bin/cat"`
	wide := filepath.Join(dir, "w.json")
	os.WriteFile(wide, []byte(`{"read":["`+work+`/**","`+dir+`/wide/**"],"write":["`+work+`/**"],"execute":[`+exe+`]}`), 0o644)
	pol, err := policy.ParsePolicy([]byte(`{"read":["`+work+`/**"],"write":["`+work+`/**"],"execute":[`+exe+`]}`), "pi")
	if err != nil {
		t.Fatal(err)
	}
	root, err := policy.NewRoot("/")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := policy.CompilePlan(pol, policy.DefaultBaseline(), root)
	if err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(bin, "--socket", "", "exec", "--policy", wide, "--", bin, "agent-tools")
	cmd.Dir = work
	cmd.Stderr = os.Stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
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
	do := func(req Request) Result {
		t.Helper()
		r, err := c.Call(context.Background(), req)
		if err != nil {
			t.Fatalf("%s: %v", req.Op, err)
		}
		return r
	}
	denied := func(path, when string) {
		t.Helper()
		if r := do(Request{Op: OpReadFile, Path: path}); r.Errno != "EACCES" {
			t.Errorf("%s: read_file %s: %+v", when, path, r)
		}
		if r := do(Request{Op: OpShell, Command: "cat " + path}); *r.ExitCode == 0 || !strings.Contains(r.Output, "Permission denied") {
			t.Errorf("%s: cat %s: %+v", when, path, r)
		}
	}
	// W allows needed.txt: before confine the toolbox reads it.
	if r := do(Request{Op: OpReadFile, Path: needed}); r.Output != "needed\n" {
		t.Fatalf("read under W: %+v", r)
	}
	if r := do(Request{Op: OpGrant, Rules: []policy.Rule{{Path: needed, Access: policy.AccessReadFile}}}); r.Error == "" {
		t.Errorf("a grant before confine: %+v", r)
	}
	if r := do(Request{Op: OpConfine, Plan: plan}); r.Error != "" {
		t.Fatalf("confine: %+v", r)
	}
	if r := do(Request{Op: OpShell, Command: "cat a.txt"}); r.Output != "allowed\n" {
		t.Errorf("π under the calls' ruleset: %+v", r)
	}
	denied(needed, "before the grant")
	if r := do(Request{Op: OpGrant, Rules: []policy.Rule{{Path: needed, Access: policy.AccessReadFile}}}); r.Error != "" {
		t.Fatalf("grant: %+v", r)
	}
	if r := do(Request{Op: OpReadFile, Path: needed}); r.Output != "needed\n" {
		t.Errorf("read_file after the grant: %+v", r)
	}
	if r := do(Request{Op: OpShell, Command: "cat " + needed}); r.Output != "needed\n" {
		t.Errorf("cat after the grant: %+v", r)
	}
	denied(secret, "not granted")
	for _, p := range []string{link, hard} {
		r := do(Request{Op: OpGrant, Rules: []policy.Rule{{Path: p, Access: policy.AccessReadFile}}})
		if !strings.Contains(r.Error, "symbolic link") && !strings.Contains(r.Error, "hard links") {
			t.Errorf("grant of %s: %+v", p, r)
		}
		denied(p, "a refused grant")
	}
	if r := do(Request{Op: OpGrant, Rules: []policy.Rule{{Path: far, Access: policy.AccessReadFile}}}); r.Error != "" {
		t.Fatalf("grant beyond W: %+v", r)
	}
	denied(far, "beyond W")
	if r := do(Request{Op: OpConfine, Plan: plan}); r.Error == "" {
		t.Errorf("a second confine: %+v", r)
	}
}
