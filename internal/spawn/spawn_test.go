package spawn

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The main goroutine keeps the main thread, which Go never ends: a test
// goroutine that exits while locked then ends a thread of its own.
func init() { runtime.LockOSThread() }

// TestChildOutlivesTheCallersThread: a child started with a parent-death
// signal from a goroutine whose thread then exits keeps running, because
// Start forked it from the spawning thread; exec.Cmd.Start alone would
// have it killed with the thread.
func TestChildOutlivesTheCallersThread(t *testing.T) {
	for _, c := range []struct {
		name     string
		start    func(*exec.Cmd) error
		survives bool
	}{
		{"exec.Cmd.Start", (*exec.Cmd).Start, false},
		{"spawn.Start", Start, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command("sleep", "30")
			cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
			started := make(chan error, 1)
			go func() {
				runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
				started <- c.start(cmd)
			}()
			if err := <-started; err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			exited := make(chan struct{})
			go func() { cmd.Wait(); close(exited) }()
			select {
			case <-exited:
				if c.survives {
					t.Fatalf("the child died with the starting goroutine's thread (%v)", cmd.ProcessState)
				}
			case <-time.After(time.Second):
				if !c.survives {
					t.Fatalf("the child of an exited thread is alive: the test cannot see the difference (state %s)", procState(cmd.Process.Pid))
				}
			}
		})
	}
}

func procState(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return strings.TrimSpace(string(b))
}
