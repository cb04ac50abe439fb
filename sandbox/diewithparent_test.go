package sandbox

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/testenv"
)

// TestDieWithParentKillsTheCommandWithItsParent: a command started under
// die-with-parent by a shell dies when that shell is SIGKILLed; without
// the wrapper the same command outlives it.
func TestDieWithParentKillsTheCommandWithItsParent(t *testing.T) {
	bin := testenv.Authbench(t)
	for _, wrapped := range []bool{true, false} {
		child := "sleep 1000"
		if wrapped {
			child = bin + " " + DieWithParentCommand + " -- sleep 1000"
		}
		// The shell starts the command, prints its pid and waits.
		sh := exec.Command("sh", "-c", child+" & echo $!; wait")
		out, err := sh.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := sh.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(line))
		if err != nil {
			t.Fatal(err)
		}
		// The wrapper has executed sleep once its comm is sleep.
		for i := 0; i < 500 && comm(pid) != "sleep"; i++ {
			time.Sleep(10 * time.Millisecond)
		}
		if comm(pid) != "sleep" {
			t.Fatalf("wrapped %v: pid %d is %q, not sleep", wrapped, pid, comm(pid))
		}
		_ = sh.Process.Kill()
		_ = sh.Wait()
		gone := false
		for i := 0; i < 500 && !gone; i++ {
			gone = syscall.Kill(pid, 0) != nil || comm(pid) == "" || strings.HasPrefix(procState(pid), "Z")
			time.Sleep(10 * time.Millisecond)
		}
		if wrapped && !gone {
			t.Errorf("the wrapped command outlived its parent")
		}
		if !wrapped {
			if gone {
				t.Errorf("control: the unwrapped command died with its parent too")
			}
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

func TestDieWithParentArgv(t *testing.T) {
	got := DieWithParentArgv("/.authbench/authbench", []string{"redis-server", "--port", "6380"})
	want := "/.authbench/authbench die-with-parent -- redis-server --port 6380"
	if strings.Join(got, " ") != want {
		t.Fatalf("%q", got)
	}
	if err := RunDieWithParent([]string{"--"}); err == nil {
		t.Fatal("no command: no error")
	}
}

// comm is the command name of pid ("" when it is gone).
func comm(pid int) string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// procState is pid's state letter and name from /proc/PID/status.
func procState(pid int) string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(data), "\n") {
		if s, ok := strings.CutPrefix(l, "State:"); ok {
			return strings.TrimSpace(s)
		}
	}
	return ""
}
