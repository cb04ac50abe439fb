package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/authbench/authbench/cli/core"

	"github.com/authbench/authbench/internal/testenv"

	"github.com/authbench/authbench/sandbox"
	"github.com/authbench/authbench/tracer"
)

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func requireLandlockCLI(t *testing.T) {
	t.Helper()
	testenv.Need(t, "Landlock", sandbox.KernelLandlockABI() > 0)
}

// TestExecBadInputStartsNothing: every kind of bad input exits 2 with a
// precise message, and the command never runs.
func TestExecBadInputStartsNothing(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	good := writeFile(t, dir, "good.json", `{"read":[],"write":[],"execute":[]}`)
	bad := writeFile(t, dir, "bad.json", `{"read":["relative/path"],"write":[],"execute":[]}`)
	unknown := writeFile(t, dir, "sc.json", `{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["mount","frobnicate"],"action":"SCMP_ACT_ERRNO"}]}`)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"invalid policy", []string{"exec", "--policy", bad}, "bad.json: read[0]"},
		{"missing policy file", []string{"exec", "--policy", filepath.Join(dir, "nope.json")}, "nope.json"},
		{"no --policy", []string{"exec"}, "--policy is required"},
		{"uid without gid", []string{"exec", "--policy", good, "--uid", "1000"}, "--uid and --gid"},
		{"invalid baseline spec", []string{"exec", "--policy", good, "--baseline", bad}, "baseline"},
		{"unknown syscall names", []string{"exec", "--policy", good, "--seccomp", unknown}, "unknown syscall names: frobnicate"},
		{"unreadable seccomp file", []string{"exec", "--policy", good, "--seccomp", filepath.Join(dir, "none.json")}, "none.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append(tc.args, "--", "/bin/sh", "-c", "touch "+marker)
			code, _, stderr := runCLI(args...)
			if code != core.ExitUsage {
				t.Errorf("exit %d, want %d (stderr %s)", code, core.ExitUsage, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q lacks %q", stderr, tc.want)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the command ran")
			}
		})
	}
}

// TestExecRefusesWithoutLandlock: never run unconfined silently.
func TestExecRefusesWithoutLandlock(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	pol := writeFile(t, dir, "p.json", `{"read":[],"write":[],"execute":[]}`)
	saved := landlockABI
	landlockABI = func() int { return 0 }
	defer func() { landlockABI = saved }()
	code, _, stderr := runCLI("exec", "--policy", pol, "--", "/bin/sh", "-c", "touch "+marker)
	if code != core.ExitSandboxFailure || !strings.Contains(stderr, "--allow-unenforced") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command ran unconfined")
	}
	requireLandlockCLI(t) // the child still sees the real kernel
	code, _, stderr = runCLI("exec", "--policy", pol, "--allow-unenforced", "--", "/bin/sh", "-c", "exit 0")
	if code != 0 || !strings.Contains(stderr, "NOT ENFORCED") {
		t.Fatalf("with --allow-unenforced: exit %d, stderr %q", code, stderr)
	}
}

func TestExecRunsConfined(t *testing.T) {
	requireLandlockCLI(t)
	dir := t.TempDir()
	allowed := writeFile(t, dir, "allowed.txt", "hello")
	writeFile(t, dir, "secret.txt", "secret")
	pol := writeFile(t, dir, "p.json", `{"read":["`+allowed+`"],"write":[],"execute":["/usr/bin/cat"]}`)
	code, out, stderr := runCLI("exec", "--policy", pol, "--baseline", "none", "--", "cat", allowed)
	if code != 0 || out != "hello" {
		t.Fatalf("cat allowed: exit %d, out %q, stderr %q", code, out, stderr)
	}
	code, _, stderr = runCLI("exec", "--policy", pol, "--baseline", "none", "--", "cat", filepath.Join(dir, "secret.txt"))
	if code != 1 || !strings.Contains(stderr, "Permission denied") {
		t.Fatalf("cat secret: exit %d, stderr %q", code, stderr)
	}
	// exit status propagation, exec refusal, missing command
	if code, _, _ := runCLI("exec", "--policy", pol, "--", "/bin/sh", "-c", "exit 7"); code != 7 {
		t.Errorf("sh -c 'exit 7': exit %d", code)
	}
	code, _, stderr = runCLI("exec", "--policy", pol, "--", "/usr/bin/id")
	if code != 126 || !strings.Contains(stderr, "no execute rule") {
		t.Errorf("id without an execute rule: exit %d, stderr %q", code, stderr)
	}
	if code, _, _ := runCLI("exec", "--policy", pol, "--", "no-such-command-xyz"); code != 127 {
		t.Errorf("missing command: exit %d", code)
	}
}

// TestExecRefusesSetIDModes: on a bare host (no nosuid mount under the
// tree) `exec` keeps the default profile's set-ID rule: chmod u+s on a
// file and g+s on a directory the policy lets it write fail with EPERM,
// while a plain chmod works. Task containers, mounted nosuid, allow them
// (sandbox.ContainerProfile).
func TestExecRefusesSetIDModes(t *testing.T) {
	requireLandlockCLI(t)
	dir := t.TempDir()
	file := writeFile(t, dir, "tool", "#!/bin/sh\n")
	sub := filepath.Join(dir, "shared")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	pol := writeFile(t, dir, "p.json", `{"read":["`+dir+`/**"],"write":["`+dir+`/**"],"execute":["/usr/bin/chmod"]}`)
	for _, c := range []struct {
		mode, path string
		refused    bool
	}{{"u+s", file, true}, {"g+s", sub, true}, {"2775", sub, true}, {"755", file, false}} {
		code, _, stderr := runCLI("exec", "--policy", pol, "--", "/usr/bin/chmod", c.mode, c.path)
		st, err := os.Stat(c.path)
		if err != nil {
			t.Fatal(err)
		}
		setID := st.Mode()&(os.ModeSetuid|os.ModeSetgid) != 0
		if refused := code != 0 && strings.Contains(stderr, "Operation not permitted"); refused != c.refused || setID {
			t.Errorf("chmod %s %s: exit %d, stderr %q, mode %v; want refused %v and no set-ID bit", c.mode, c.path, code, stderr, st.Mode(), c.refused)
		}
	}
}

func TestExecWarnings(t *testing.T) {
	requireLandlockCLI(t)
	dir := t.TempDir()
	pol := writeFile(t, dir, "p.json", `{"read":["/nope/*"],"write":["/**"],"execute":[]}`)
	code, _, stderr := runCLI("exec", "--policy", pol, "--", "/bin/sh", "-c", "true")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if !strings.Contains(stderr, "WARNING: write /**: GRANTS WRITE ACCESS TO THE WHOLE FILE SYSTEM") {
		t.Errorf("no loud warning: %q", stderr)
	}
	if !strings.Contains(stderr, "warning: read /nope/*: matches no existing path") {
		t.Errorf("no no-match warning: %q", stderr)
	}
}

func TestPolicyPlanCommand(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.txt", "a")
	pol := writeFile(t, dir, "p.json", `{"read":["/a.txt","/missing"],"write":["/new.txt"],"execute":[]}`)
	code, out, stderr := runCLI("policy", "plan", "--policy", pol, "--root", dir, "--baseline", "none", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Plan struct {
			Rules []struct {
				Path   string   `json:"path"`
				Access []string `json:"access"`
			} `json:"rules"`
			Warnings []struct{ Code string } `json:"warnings"`
		} `json:"plan"`
		Enforcement sandbox.Enforcement `json:"enforcement"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(doc.Plan.Rules) != 1 || doc.Plan.Rules[0].Path != "/a.txt" || len(doc.Plan.Warnings) != 3 {
		t.Errorf("plan = %+v", doc.Plan)
	}
	code, out, _ = runCLI("policy", "plan", "--policy", pol, "--root", dir)
	if code != 0 || !strings.Contains(out, "wider than the policy") || !strings.Contains(out, "create-at-root") {
		t.Errorf("human output (exit %d):\n%s", code, out)
	}
	if code, _, stderr := runCLI("policy", "plan", "--policy", pol, "--root", filepath.Join(dir, "nope")); code != core.ExitUsage {
		t.Errorf("missing root: exit %d %s", code, stderr)
	}
}

func TestSeccompCommands(t *testing.T) {
	code, out, _ := runCLI("seccomp", "default")
	if code != 0 || !bytes.Equal([]byte(out), sandbox.DefaultProfileJSON()) {
		t.Fatalf("seccomp default: exit %d", code)
	}
	f := writeFile(t, t.TempDir(), "default.json", out)
	if code, out, _ := runCLI("seccomp", "check", f); code != 0 || !strings.HasPrefix(out, "ok") {
		t.Errorf("check of the default profile: exit %d %s", code, out)
	}
	bad := writeFile(t, t.TempDir(), "bad.json", `{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["mountt"],"action":"SCMP_ACT_ERRNO"}]}`)
	if code, _, stderr := runCLI("seccomp", "check", bad); code != core.ExitUsage || !strings.Contains(stderr, "mountt") {
		t.Errorf("check of a bad profile: exit %d %s", code, stderr)
	}
}

// TestExecTrace: --trace writes the events and lists the denials and the
// programs run through the dynamic loader on stderr.
func TestExecTrace(t *testing.T) {
	requireLandlockCLI(t)
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("needs root for the eBPF tracer")
		}
		t.Skip("needs root for the eBPF tracer")
	}
	if tr, err := tracer.Load(tracer.Options{RingBytes: 1 << 20}, nil); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("needs the eBPF tracer: %v", err)
		}
		t.Skipf("needs the eBPF tracer: %v", err)
	} else {
		tr.Close()
	}
	// outside /tmp, which the default baseline opens
	dir, err := os.MkdirTemp("/var/tmp", "authbench-exec-trace-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	writeFile(t, dir, "secret.txt", "secret")
	prog := filepath.Join(dir, "prog")
	data, err := os.ReadFile("/usr/bin/true")
	if err != nil {
		t.Skip(err)
	}
	events := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(prog, data, 0o755); err != nil {
		t.Fatal(err)
	}
	pol := writeFile(t, dir, "p.json", `{"read":["`+prog+`"],"write":[],"execute":["/usr/bin/cat"]}`)
	script := "cat " + filepath.Join(dir, "secret.txt") + "; /lib64/ld-linux-x86-64.so.2 " + prog + "; exit 3"
	code, _, stderr := runCLI("exec", "--policy", pol, "--trace", events, "--", "/bin/sh", "-c", script)
	if code != 3 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	for _, want := range []string{
		"read    open     " + filepath.Join(dir, "secret.txt") + " [EACCES]",
		"ran " + prog + " through the dynamic loader",
		"execute exec     " + prog + " [allowed by the kernel, outside the plan]",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	log, err := os.ReadFile(events)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(log)), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[len(lines)-1], `{"op":"summary"`) {
		t.Fatalf("event file:\n%s", log)
	}
	if !strings.Contains(string(log), `"path":"`+prog+`","path2":"/lib64/ld-linux-x86-64.so.2"`) {
		t.Errorf("no derived exec event for the loader run:\n%s", log)
	}
	if rec, err := os.ReadFile(events + ".plan.json"); err != nil || !strings.Contains(string(rec), `"enforcement"`) {
		t.Errorf("plan record: %v\n%s", err, rec)
	}
}

// TestExecAttached runs exec as a real process with real standard
// streams: the embedded run's tree writes to them itself, with the same
// confinement and exit statuses as through a daemon.
func TestExecAttached(t *testing.T) {
	requireLandlockCLI(t)
	dir, err := os.MkdirTemp("/var/tmp", "authbench-exec-inplace-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	allowed := writeFile(t, dir, "allowed.txt", "hello")
	secret := writeFile(t, dir, "secret.txt", "secret")
	pol := writeFile(t, dir, "p.json", `{"read":["`+allowed+`"],"write":[],"execute":["/usr/bin/cat"]}`)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (int, int, string, string) {
		cmd := exec.Command(self, args...)
		cmd.Env = append(os.Environ(), asCLIEnv+"=1")
		code, out, stderr := runCmd(t, cmd)
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal()) // as a shell reports it
		}
		return code, cmd.Process.Pid, out, stderr
	}
	code, _, out, stderr := run("exec", "--policy", pol, "--", "/bin/sh", "-c", "cat "+allowed+"; cat "+secret)
	if code != 1 || !strings.Contains(stderr, "Permission denied") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if out != "hello" {
		t.Errorf("output %q: want the allowed file", out)
	}
	if code, _, _, stderr := run("exec", "--policy", pol, "--", "/usr/bin/id"); code != 126 || !strings.Contains(stderr, "no execute rule") {
		t.Errorf("id: exit %d, stderr %q", code, stderr)
	}
	if code, _, _, _ := run("exec", "--policy", pol, "--", "no-such-command-xyz"); code != 127 {
		t.Errorf("missing command: exit %d", code)
	}
	// The root is its PID namespace's init, which signals from inside
	// its tree cannot kill: a child killed by SIGTERM reports 143.
	if code, _, _, _ := run("exec", "--policy", pol, "--", "/bin/sh", "-c", "/bin/sh -c 'kill -TERM $$'; exit $?"); code != 128+15 {
		t.Errorf("killed by SIGTERM: exit %d", code)
	}
}
