package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/authbench/authbench/cli/core"
)

// runBinaryIn is runBinary in working directory dir, with a PATH that
// the policies of these tests let the run's user search (a directory it
// cannot search makes the lookup fail with EACCES, 126, as execvp).
func runBinaryIn(t *testing.T, bin, socket, dir string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), core.SocketEnv+"="+socket, "PATH=/usr/bin:/bin")
	return runCmd(t, cmd)
}

var runIDPattern = regexp.MustCompile(`run [0-9]{8}T[0-9]{6}-[0-9a-f]+ `)

// TestExecStatusesEmbeddedMatchDaemon: exec through the embedded daemon
// and through a socket daemon gives the same output and exit status for
// every way a run can end: 0, the command's non-zero status, 127 not
// found, 126 not executable, 125 could not be confined; and a relative
// ./prog is found in the caller's working directory.
func TestExecStatusesEmbeddedMatchDaemon(t *testing.T) {
	requireLandlockCLI(t)
	bin := benchBinary(t)
	socket := serveTestDaemon(t, bin)
	dir, err := os.MkdirTemp("/var/tmp", "authbench-statuses-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	writeFile(t, dir, "prog.sh", "#!/bin/sh\necho relative \"$@\"\n")
	os.Chmod(filepath.Join(dir, "prog.sh"), 0o755)
	writeFile(t, dir, "noexec.sh", "#!/bin/sh\necho never\n")
	private := filepath.Join(dir, "private")
	if err := os.Mkdir(private, 0o700); err != nil {
		t.Fatal(err)
	}
	pol := writeFile(t, dir, "p.json", `{"read":["`+dir+`/**"],"write":[],"execute":["/usr/bin/**","/bin/**","`+dir+`/**"]}`)
	asNobody := []string{"exec", "--uid", "65534", "--gid", "65534", "--policy", pol, "--"}
	for _, tc := range []struct {
		name   string
		cwd    string
		argv   []string
		status int
		stdout string
	}{
		{"success", dir, []string{"/bin/sh", "-c", "echo ok"}, 0, "ok\n"},
		{"non-zero", dir, []string{"/bin/sh", "-c", "echo out; echo err >&2; exit 7"}, 7, "out\n"},
		{"not found", dir, []string{"no-such-command-xyz"}, core.ExitNotFound, ""},
		{"not executable", dir, []string{"./noexec.sh"}, core.ExitNotExecutable, ""},
		{"relative", dir, []string{"./prog.sh", "a"}, 0, "relative a\n"},
		// nobody cannot enter the caller's directory: nothing runs.
		{"could not confine", private, []string{"/bin/true"}, core.ExitSandboxFailure, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var results []string
			for _, socket := range []string{"", socket} {
				code, out, errOut := runBinaryIn(t, bin, socket, tc.cwd, append(asNobody, tc.argv...)...)
				if code != tc.status || out != tc.stdout {
					t.Errorf("socket %q: exit %d, stdout %q; want %d, %q (stderr %q)", socket, code, out, tc.status, tc.stdout, errOut)
				}
				results = append(results, runIDPattern.ReplaceAllString(errOut, "run ID "))
			}
			if results[0] != results[1] {
				t.Errorf("stderr differs:\nembedded: %q\ndaemon:   %q", results[0], results[1])
			}
		})
	}
}

// TestExecForwardsSignals: a termination signal to an exec, embedded or
// through a daemon's socket, reaches the tree the same way. A root that catches it handles it; a root that leaves
// it to the default action (which the kernel does not apply to a PID
// namespace's init) is killed with its whole tree, with status 128+N.
func TestExecForwardsSignals(t *testing.T) {
	requireLandlockCLI(t)
	bin := benchBinary(t)
	socket := serveTestDaemon(t, bin)
	for _, mode := range []struct{ name, socket string }{{"embedded", ""}, {"daemon", socket}} {
		t.Run(mode.name, func(t *testing.T) { execForwardsSignals(t, bin, mode.socket) })
	}
}

func execForwardsSignals(t *testing.T, bin, socket string) {
	dir, err := os.MkdirTemp("/var/tmp", "authbench-signal-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	pol := writeFile(t, dir, "p.json", `{"read":[],"write":[],"execute":["/usr/bin/**","/bin/**"]}`)
	marker := "1000.4242" + strconv.Itoa(os.Getpid()) // an argument only this test's sleep has
	for _, tc := range []struct {
		name   string
		sig    syscall.Signal
		script string
		status int
		stdout string
	}{
		{"default action", syscall.SIGTERM, "sleep " + marker + " & echo started; wait", 128 + int(syscall.SIGTERM), "started\n"},
		{"caught", syscall.SIGTERM, "trap 'echo caught; exit 3' TERM; sleep " + marker + " & echo started; wait", 3, "started\ncaught\n"},
		{"SIGINT default action", syscall.SIGINT, "sleep " + marker + " & echo started; wait", 128 + int(syscall.SIGINT), "started\n"},
		{"SIGINT caught", syscall.SIGINT, "trap 'echo caught; exit 4' INT; sleep " + marker + " & echo started; wait", 4, "started\ncaught\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, "exec", "--policy", pol, "--", "/bin/sh", "-c", tc.script)
			cmd.Env = append(os.Environ(), core.SocketEnv+"="+socket)
			r, w, _ := os.Pipe()
			cmd.Stdout = w
			var errb bytes.Buffer
			cmd.Stderr = &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			w.Close()
			buf := make([]byte, len("started\n"))
			if _, err := r.Read(buf); err != nil || string(buf) != "started\n" {
				t.Fatalf("read %q, %v; stderr %q", buf, err, errb.String())
			}
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			rest, _ := readAll(r)
			err := cmd.Wait()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			if code != tc.status || string(buf)+rest != tc.stdout {
				t.Errorf("exit %d, stdout %q; want %d, %q (stderr %q)", code, string(buf)+rest, tc.status, tc.stdout, errb.String())
			}
			if pids := processesWith(marker); len(pids) > 0 {
				t.Errorf("the tree's sleep %s still runs: %v", marker, pids)
				for _, p := range pids {
					syscall.Kill(p, syscall.SIGKILL)
				}
			}
		})
	}
}

func readAll(f *os.File) (string, error) {
	var b bytes.Buffer
	_, err := b.ReadFrom(f)
	return b.String(), err
}

// processesWith lists the processes whose command line contains s.
func processesWith(s string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && bytes.Contains(cmdline, []byte(s)) && pid != os.Getpid() {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestDaemonHidesSocketAndGrantsCapabilities: in a tree the daemon runs
// the socket is no socket (covered by /dev/null) while its neighbours
// stay visible; --cap keeps a capability for a uid-0 tree only, and
// asking for one for another uid is bad input.
func TestDaemonHidesSocketAndGrantsCapabilities(t *testing.T) {
	requireLandlockCLI(t)
	bin := benchBinary(t)
	socket := serveTestDaemon(t, bin)
	dir := t.TempDir()
	pol := writeFile(t, dir, "p.json", `{"read":["/**"],"write":[],"execute":["/usr/bin/**","/bin/**"]}`)
	neighbour := writeFile(t, filepath.Dir(socket), "neighbour", "here\n")
	code, out, errOut := runBinaryIn(t, bin, socket, "/", "exec", "--policy", pol, "--", "/bin/sh", "-c",
		"test -S "+socket+" && echo socket; cat "+neighbour)
	if code != 0 || out != "here\n" {
		t.Errorf("socket hidden, neighbour visible: exit %d, stdout %q (want only the neighbour's content), stderr %q", code, out, errOut)
	}
	code, out, errOut = runBinaryIn(t, bin, socket, "/", "exec", "--cap", "CAP_CHOWN", "--policy", pol, "--", "/bin/sh", "-c", "grep CapEff /proc/self/status")
	if code != 0 || !strings.Contains(out, "0000000000000001") {
		t.Errorf("--cap CAP_CHOWN as uid 0: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut = runBinaryIn(t, bin, socket, "/", "exec", "--policy", pol, "--", "/bin/sh", "-c", "grep -E 'Cap(Eff|Bnd)' /proc/self/status")
	if code != 0 || strings.Count(out, "0000000000000000") != 2 {
		t.Errorf("exec as uid 0 on the host keeps no capability by default: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut = runBinaryIn(t, bin, socket, "/", "exec", "--caps", "docker", "--policy", pol, "--", "/bin/sh", "-c", "grep -E 'Cap(Eff|Bnd)' /proc/self/status")
	if code != 0 || strings.Count(out, "00000000a80425fb") != 2 {
		t.Errorf("--caps docker as uid 0: exit %d, stdout %q (want Docker's set, a80425fb, effective and bounding), stderr %q", code, out, errOut)
	}
	code, _, errOut = runBinaryIn(t, bin, socket, "/", "exec", "--caps", "chown,CAP_FLY", "--policy", pol, "--", "/bin/true")
	if code != core.ExitUsage || !strings.Contains(errOut, `"CAP_FLY"`) {
		t.Errorf("--caps with an unknown name: exit %d, stderr %q; want 2 naming it", code, errOut)
	}
	code, _, errOut = runBinaryIn(t, bin, socket, "/", "exec", "--uid", "65534", "--gid", "65534", "--cap", "CAP_CHOWN", "--policy", pol, "--", "/bin/true")
	if code != core.ExitUsage || !strings.Contains(errOut, "capabilities") {
		t.Errorf("--cap for uid 65534: exit %d, stderr %q; want 2 naming the field", code, errOut)
	}
}
