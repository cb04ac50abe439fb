package cli

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/authbench/authbench/cli/core"
	"github.com/authbench/authbench/internal/testenv"
)

// TestTaskRunSignalsAlikeThroughASocket: SIGINT or SIGTERM to `task run`
// ends it with the signal's status (128+N), its agent gone, embedded and
// through a daemon's socket alike; through the socket the daemon's run
// is cancelled, not left running.
func TestTaskRunSignalsAlikeThroughASocket(t *testing.T) {
	testenv.NeedRoot(t)
	bin := benchBinary(t)
	socket := serveTestDaemon(t, bin)
	for i, mode := range []struct{ name, socket string }{{"embedded", ""}, {"daemon", socket}} {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			t.Run(mode.name+"/"+sig.String(), func(t *testing.T) {
				marker := "600.4242" + strconv.Itoa(os.Getpid()) + strconv.Itoa(int(sig)) + strconv.Itoa(i) // sleep's argument: a number
				cmd := exec.Command(bin, "task", "run", "../tasks/testdata/fixtures/hello-standard", "--unconstrained",
					"--agent", "cmd:sleep "+marker, "--no-trace", "--images-dir", testenv.ImagesDir(), "--state-dir", t.TempDir())
				cmd.Env = append(os.Environ(), core.SocketEnv+"="+mode.socket)
				var errb bytes.Buffer
				cmd.Stderr = &errb
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				exited := make(chan struct{})
				var waitErr error
				go func() { waitErr = cmd.Wait(); close(exited) }()
				if !waitFor(10*time.Minute, func() bool {
					select {
					case <-exited:
						return true
					default:
					}
					return len(processesWith("sleep\x00"+marker)) > 0
				}) || len(processesWith("sleep\x00"+marker)) == 0 {
					_ = cmd.Process.Kill()
					t.Fatalf("the agent never started: %s", errb.String())
				}
				if err := cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
				<-exited
				err := waitErr
				code := -1
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				} else if err == nil {
					code = 0
				}
				if code != 128+int(sig) || !strings.Contains(errb.String(), "interrupted by "+map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}[sig]) {
					t.Errorf("exit %d, want %d; stderr %q", code, 128+int(sig), errb.String())
				}
				if !waitFor(30*time.Second, func() bool { return len(processesWith("sleep\x00"+marker)) == 0 }) {
					t.Errorf("the agent outlived the interrupted run: %v", processesWith("sleep\x00"+marker))
					for _, p := range processesWith("sleep\x00" + marker) {
						_ = syscall.Kill(p, syscall.SIGKILL)
					}
				}
			})
		}
	}
	code, out, _ := runBinary(t, bin, socket, "runs", "ls")
	if code != 0 || strings.Count(out, "cancelled") < 2 {
		t.Errorf("the daemon's runs were not cancelled: %q", out)
	}
}
