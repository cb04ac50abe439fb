package lifecycle

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/authbench/authbench/internal/testenv"
)

// pidReuseChild names the environment variable under which the test
// binary runs pidReuse (as the init of a PID namespace of its own).
const pidReuseChild = "AUTHBENCH_LIFECYCLE_PIDREUSE"

func TestMain(m *testing.M) {
	if os.Getenv(pidReuseChild) == "1" {
		if err := pidReuse(); err != nil {
			fmt.Fprintln(os.Stderr, "pid reuse:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestProcessSignal: a handle signals its running process; once the
// process was reaped, Signal returns an *ExitedError, Exited says so,
// and a closed handle behaves the same.
func TestProcessSignal(t *testing.T) {
	cmd := exec.Command("/bin/sleep", "1000")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p, err := OpenProcess(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Exited() {
		t.Fatal("a running process's handle says it exited")
	}
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("signal a running process: %v", err)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
		t.Fatalf("wait: %v; want ended by the SIGTERM sent through the pidfd", err)
	}
	if !p.Exited() {
		t.Error("a reaped process's handle does not say it exited")
	}
	var ex *ExitedError
	if err := p.Signal(syscall.SIGKILL); !errors.As(err, &ex) || ex.Pid != cmd.Process.Pid || ex.Signal != syscall.SIGKILL {
		t.Errorf("signal after exit: %v; want *ExitedError for %d", err, cmd.Process.Pid)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Signal(syscall.SIGKILL); !errors.As(err, &ex) {
		t.Errorf("signal through a closed handle: %v; want *ExitedError", err)
	}
	if _, err := OpenProcess(0); err == nil {
		t.Error("a handle on pid 0 was taken")
	}
}

// TestSignalNeverReachesARecycledPid: a handle on a process that was
// reaped, whose pid a new process was then given, signals nothing: the
// new process lives on. The test runs in a PID namespace of its own
// (nothing else takes pids there) and sets ns_last_pid so that the new
// process gets exactly the old pid; it fails, rather than passing
// without proof, when the pid was not reused.
func TestSignalNeverReachesARecycledPid(t *testing.T) {
	testenv.NeedRoot(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), pidReuseChild+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWPID, Pdeathsig: syscall.SIGKILL}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.Contains(string(out), "reused pid ") {
		t.Fatalf("the child proved nothing: %s", out)
	}
	t.Logf("%s", out)
}

// pidReuse is TestSignalNeverReachesARecycledPid inside its namespace.
func pidReuse() error {
	for try := 0; try < 20; try++ {
		old := exec.Command("/bin/sleep", "1000")
		if err := old.Start(); err != nil {
			return err
		}
		pid := old.Process.Pid
		p, err := OpenProcess(pid)
		if err != nil {
			return err
		}
		_ = old.Process.Kill()
		_ = old.Wait()
		// The next pid handed out is pid (unless a runtime thread takes it
		// first: then try again).
		if err := os.WriteFile("/proc/sys/kernel/ns_last_pid", []byte(strconv.Itoa(pid-1)), 0); err != nil {
			return err
		}
		recycled := exec.Command("/bin/sleep", "1000")
		if err := recycled.Start(); err != nil {
			return err
		}
		if recycled.Process.Pid != pid {
			_ = recycled.Process.Kill()
			_ = recycled.Wait()
			p.Close()
			continue
		}
		err = checkRecycled(p, recycled)
		_ = recycled.Process.Kill()
		_ = recycled.Wait()
		p.Close()
		if err == nil {
			fmt.Printf("reused pid %d: the old handle signalled nothing\n", pid)
		}
		return err
	}
	return fmt.Errorf("no pid was reused in 20 tries")
}

// checkRecycled checks that p, a handle on a reaped process whose pid
// recycled now has, signals nothing and says so.
func checkRecycled(p *Process, recycled *exec.Cmd) error {
	pid := recycled.Process.Pid
	if err := syscall.Kill(pid, 0); err != nil {
		return fmt.Errorf("kill(%d, 0): %v; the pid does not name the new process", pid, err)
	}
	var ex *ExitedError
	if err := p.Signal(syscall.SIGKILL); !errors.As(err, &ex) {
		return fmt.Errorf("signal through the old handle: %v; want *ExitedError", err)
	}
	var ws syscall.WaitStatus
	if got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil); err != nil || got != 0 {
		return fmt.Errorf("the new process with pid %d ended (wait4 = %d, %v, %v): the old handle signalled it", pid, got, err, ws)
	}
	return nil
}
