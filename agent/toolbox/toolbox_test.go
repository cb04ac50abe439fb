package toolbox

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// serve runs Serve in the test process with a client on pipes.
func serve(t testing.TB, o Options) *Client {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := Serve(inR, outW, o)
		outW.Close()
		done <- err
	}()
	c := NewClient(inW, outR, nil)
	t.Cleanup(func() {
		c.Close()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return c
}

func call(t testing.TB, c *Client, req Request) Result {
	t.Helper()
	res, err := c.Call(context.Background(), req)
	if err != nil {
		t.Fatalf("%s: %v", req.Op, err)
	}
	if res.StartNS == 0 || res.EndNS < res.StartNS {
		t.Errorf("%s: bad call window %d..%d", req.Op, res.StartNS, res.EndNS)
	}
	return res
}

func shellCall(t *testing.T, c *Client, command string, timeoutS float64) Result {
	t.Helper()
	return call(t, c, Request{Op: OpShell, Command: command, TimeoutS: timeoutS})
}

func exit(r Result) int {
	if r.ExitCode == nil {
		return -1
	}
	return *r.ExitCode
}

func TestShellKeepsDirectoryAndExports(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	c := serve(t, Options{Dir: dir})
	if r := shellCall(t, c, "cd sub && export GREETING='hello world' && NOTEXPORTED=1", 0); exit(r) != 0 {
		t.Fatalf("cd/export: %+v", r)
	}
	r := shellCall(t, c, `pwd; echo "$GREETING"; echo "x${NOTEXPORTED}x"`, 0)
	want := filepath.Join(dir, "sub") + "\nhello world\nxx\n"
	if r.Output != want {
		t.Errorf("output %q, want %q", r.Output, want)
	}
	// exit in the command still keeps the state; the status is returned
	r = shellCall(t, c, "cd .. && export N=2 && exit 3", 0)
	if exit(r) != 3 {
		t.Errorf("exit 3: %+v", r)
	}
	r = shellCall(t, c, `pwd; echo $N; unset N`, 0)
	if r.Output != dir+"\n2\n" {
		t.Errorf("after exit 3: %q", r.Output)
	}
	if r = shellCall(t, c, `echo "[$N]"`, 0); r.Output != "[]\n" {
		t.Errorf("unset did not persist: %q", r.Output)
	}
	// stderr is interleaved with stdout
	if r = shellCall(t, c, `echo out; echo err >&2; ls /nonexistent-xyz`, 0); !strings.Contains(r.Output, "out\nerr\n") || !strings.Contains(r.Output, "No such file") || exit(r) == 0 {
		t.Errorf("stderr: %+v", r)
	}
	// a directory that vanished: the next command runs in the first one
	shellCall(t, c, "mkdir gone && cd gone && rmdir ../gone", 0)
	if r = shellCall(t, c, "pwd", 0); !strings.HasPrefix(r.Output, dir+"\n") || !strings.Contains(r.Output, "cannot be entered") {
		t.Errorf("vanished directory: %q", r.Output)
	}
}

func TestShellFloodIsBounded(t *testing.T) {
	c := serve(t, Options{Dir: t.TempDir(), MaxOutput: 4096})
	r := shellCall(t, c, `i=0; while [ $i -lt 50000 ]; do echo "line $i"; i=$((i+1)); done`, 60)
	if exit(r) != 0 || !r.Truncated {
		t.Fatalf("flood: exit %d truncated %v", exit(r), r.Truncated)
	}
	if len(r.Output) > 4096+300 {
		t.Errorf("output %d bytes, bound 4096", len(r.Output))
	}
	if !strings.HasPrefix(r.Output, "line 0\n") || !strings.HasSuffix(r.Output, "line 49999\n") {
		t.Errorf("head or tail missing: %q ... %q", r.Output[:20], r.Output[len(r.Output)-20:])
	}
	total := 0
	for i := range 50000 {
		total += len(fmt.Sprintf("line %d\n", i))
	}
	if !strings.Contains(r.Output, fmt.Sprintf("%d bytes of output dropped (%d in all", total-4096, total)) {
		t.Errorf("no drop note with the count: %q", r.Output[2000:2200])
	}
}

func TestShellTimeoutKillsTheGroupAndTheShellGoesOn(t *testing.T) {
	dir := t.TempDir()
	c := serve(t, Options{Dir: dir})
	shellCall(t, c, "export KEPT=yes", 0)
	r := shellCall(t, c, "cd /; export LOST=1; sleep 1000 & echo $! > "+dir+"/pid; sleep 1000", 0.5)
	if !r.TimedOut || !strings.Contains(r.Output, "timed out after 500ms") || exit(r) != 128+int(syscall.SIGKILL) {
		t.Fatalf("never-returning command: %+v", r)
	}
	data, err := os.ReadFile(filepath.Join(dir, "pid"))
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	fmt.Sscan(string(data), &pid)
	time.Sleep(50 * time.Millisecond) // reaped by init (the test's parent process group is gone)
	if err := syscall.Kill(pid, 0); err == nil {
		if st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); !strings.Contains(string(st), ") Z ") {
			t.Errorf("background sleep %d of the timed-out command still runs", pid)
		}
	}
	r = shellCall(t, c, `pwd; echo "$KEPT[$LOST]"`, 0)
	if r.Output != dir+"\nyes[]\n" || exit(r) != 0 {
		t.Errorf("after the timeout: %+v", r)
	}
}

func TestShellBackgroundProcessDoesNotHangTheCall(t *testing.T) {
	dir := t.TempDir()
	c := serve(t, Options{Dir: dir})
	start := time.Now()
	r := shellCall(t, c, "sleep 30 & echo $! > pid; echo started", 20)
	if r.TimedOut || exit(r) != 0 || !strings.HasPrefix(r.Output, "started\n") || !strings.Contains(r.Output, "background process still holds the output") {
		t.Fatalf("background: %+v", r)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("the call waited for the background process")
	}
	data, _ := os.ReadFile(filepath.Join(dir, "pid"))
	var pid int
	if _, err := fmt.Sscan(string(data), &pid); err != nil || pid <= 0 {
		t.Fatalf("pid file %q", data)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
}

func TestShellBadInput(t *testing.T) {
	c := serve(t, Options{Dir: t.TempDir(), MaxTimeout: time.Second})
	if r := call(t, c, Request{Op: OpShell}); r.Error == "" {
		t.Error("empty command accepted")
	}
	if r := call(t, c, Request{Op: OpShell, Command: "true", TimeoutS: -1}); r.Error == "" {
		t.Error("negative timeout accepted")
	}
	// a timeout beyond the maximum is cut to it
	if r := call(t, c, Request{Op: OpShell, Command: "sleep 5", TimeoutS: 100}); !r.TimedOut {
		t.Errorf("MaxTimeout not applied: %+v", r)
	}
	if r := shellCall(t, c, "echo fine", 0); r.Output != "fine\n" {
		t.Errorf("after: %q", r.Output)
	}
}

func TestShellWithoutBash(t *testing.T) {
	c := serve(t, Options{Dir: t.TempDir(), Shell: "/bin/sh"})
	shellCall(t, c, "cd / && export A='quoted '\"'\"'value'", 0)
	if r := shellCall(t, c, `pwd; echo "$A"`, 0); r.Output != "/\nquoted 'value\n" {
		t.Errorf("sh session: %q", r.Output)
	}
}
