package tracer

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/authbench/authbench/sandbox"
	"github.com/authbench/authbench/tracer/trace"
)

// TestDeliveryQueueBounded: a consumer that stops reading does not make a
// session hold more than about MaxQueued events; the rest are counted as
// lost, and delivered + lost is everything the kernel wrote.
func TestDeliveryQueueBounded(t *testing.T) {
	const maxQueued, opens = 500, 20000
	tr := loadTracer(t, Options{MaxQueued: maxQueued})
	prog := helperBin(t, "opens")
	target := filepath.Join(t.TempDir(), "target")
	writeFile(t, target, "x")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	child, err := sandbox.Start(self, sandbox.Launch{Path: prog, Args: []string{prog, "20000", target}, Env: os.Environ(), Dir: "/"}, nil, os.Stderr, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := tr.Track(child.Pid())
	if err != nil {
		_ = child.Kill()
		_, _ = child.Wait()
		t.Fatal(err)
	}
	gate, received, done := make(chan struct{}), 0, make(chan struct{})
	go func() { // a consumer stalled until the session has ended
		defer close(done)
		<-gate
		for batch := range sess.Events() {
			received += len(batch)
		}
	}()
	if err := child.Release(); err != nil {
		t.Fatal(err)
	}
	if code, err := child.Wait(); err != nil || code != 0 {
		t.Fatalf("opens exited %d: %v", code, err)
	}
	type result struct {
		sum trace.Summary
		err error
	}
	closed := make(chan result, 1)
	go func() {
		sum, err := sess.Close()
		closed <- result{sum, err}
	}()
	for { // the reader has queued or dropped every record once the session ended
		sess.mu.Lock()
		ended := sess.ended
		sess.mu.Unlock()
		if ended {
			break
		}
		runtime.Gosched()
	}
	close(gate)
	res := <-closed
	<-done
	if res.err != nil {
		t.Fatal(res.err)
	}
	if received != int(res.sum.Events) {
		t.Errorf("received %d events, summary says %d", received, res.sum.Events)
	}
	if res.sum.Events+res.sum.Lost < opens {
		t.Errorf("delivered %d + lost %d < %d opens", res.sum.Events, res.sum.Lost, opens)
	}
	if bound := uint64(maxQueued * (outBatches + 2)); res.sum.Events > bound || res.sum.Lost == 0 {
		t.Errorf("delivered %d (bound %d), lost %d: the queue was not bounded", res.sum.Events, bound, res.sum.Lost)
	}
}
