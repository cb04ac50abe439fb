package tracer

import (
	"os/exec"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
)

// TestCloseWhileEventsFlow closes tracers while a tracked process floods
// the ring with opens, so that the reader is woken and checking the ring
// when Close runs: Close must not unmap the ring under the waiting reader
// (a CI run died of SIGSEGV in the reader's ring check there), and it
// returns with the reader stopped.
func TestCloseWhileEventsFlow(t *testing.T) {
	loadTracer(t, Options{}).Close() // skips, or fails under CI, when the machine cannot trace
	for i := range 15 {
		tr, err := Load(Options{}, zap.NewNop())
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("/bin/sh", "-c", "while :; do : < /etc/hostname; done")
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // a crashed test leaves no loop behind
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sess, err := tr.Track(cmd.Process.Pid)
		if err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("round %d: track: %v", i, err)
		}
		go func() {
			for range sess.Events() {
			}
		}()
		time.Sleep(time.Duration(20+i*5) * time.Millisecond)
		closed := make(chan error, 1)
		go func() { closed <- tr.Close() }()
		select {
		case err := <-closed:
			if err != nil {
				t.Errorf("round %d: close: %v", i, err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("round %d: Close did not return in 30 s", i)
		}
		cmd.Process.Kill()
		cmd.Wait()
	}
}
