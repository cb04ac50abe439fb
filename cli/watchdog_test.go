package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/authbench/authbench/daemon"
	"github.com/authbench/authbench/internal/testenv"
)

// mountsUnder lists the mount points under dir.
func mountsUnder(t *testing.T, dir string) []string {
	t.Helper()
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) > 4 && strings.HasPrefix(f[4], dir+"/") {
			out = append(out, f[4])
		}
	}
	return out
}

// waitFor polls cond every 100 ms for up to limit.
func waitFor(limit time.Duration, cond func() bool) bool {
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

// watchdogOf is the pid of the state watchdog of state, 0 if none.
func watchdogOf(state string) int {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		data, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(data), daemon.WatchdogCommand+"\x00"+state+"\x00") {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			return pid
		}
	}
	return 0
}

// startInFlight starts an embedded `task run` whose agent sleeps, in its
// own process group, and waits until its overlay is mounted.
func startInFlight(t *testing.T, bin, state string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, "--socket", "", "task", "run", "../tasks/testdata/fixtures/hello-standard", "--unconstrained",
		"--agent", "cmd:sleep 600", "--no-trace", "--images-dir", testenv.ImagesDir(), "--state-dir", state)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		for _, m := range mountsUnder(t, state) {
			_ = syscall.Unmount(m, syscall.MNT_DETACH)
		}
	})
	if !waitFor(10*time.Minute, func() bool { return len(mountsUnder(t, state)) > 0 }) {
		t.Fatal("the run's overlay was never mounted")
	}
	return cmd
}

// TestKilledEmbeddedRunIsRecoveredByTheWatchdog: an embedded task run
// killed with SIGKILL (its whole process group) leaves no overlay
// mounted: its watchdog, in a session of its own, unmounts it.
func TestKilledEmbeddedRunIsRecoveredByTheWatchdog(t *testing.T) {
	testenv.NeedRoot(t)
	bin := testenv.Authbench(t)
	state := t.TempDir()
	cmd := startInFlight(t, bin, state)
	if watchdogOf(state) == 0 {
		t.Fatal("no watchdog runs for the embedded manager")
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if !waitFor(60*time.Second, func() bool { return len(mountsUnder(t, state)) == 0 }) {
		t.Fatalf("still mounted a minute after the kill: %v", mountsUnder(t, state))
	}
	if !waitFor(10*time.Second, func() bool { return watchdogOf(state) == 0 }) {
		t.Fatal("the watchdog did not exit")
	}
	if ents, _ := os.ReadDir(filepath.Join(state, "runc")); len(ents) != 0 {
		t.Fatalf("containers left: %v", ents)
	}
}

// TestKilledEmbeddedRunIsRecoveredAtTheNextStart: when the watchdog is
// killed too, the next embedded start unmounts what was left.
func TestKilledEmbeddedRunIsRecoveredAtTheNextStart(t *testing.T) {
	testenv.NeedRoot(t)
	bin := testenv.Authbench(t)
	state := t.TempDir()
	cmd := startInFlight(t, bin, state)
	wd := watchdogOf(state)
	if wd == 0 {
		t.Fatal("no watchdog")
	}
	_ = syscall.Kill(wd, syscall.SIGKILL)
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Wait()
	time.Sleep(time.Second) // nothing would unmount it now
	if len(mountsUnder(t, state)) == 0 {
		t.Fatal("control: unmounted without a watchdog")
	}
	next := exec.Command(bin, "--socket", "", "task", "run", "../tasks/testdata/fixtures/hello-standard", "--unconstrained",
		"--agent", "oracle", "--no-trace", "--images-dir", testenv.ImagesDir(), "--state-dir", state)
	if out, err := next.CombinedOutput(); err != nil {
		t.Fatalf("next run: %v\n%s", err, out)
	}
	if m := mountsUnder(t, state); len(m) != 0 {
		t.Fatalf("still mounted after the next start: %v", m)
	}
}
