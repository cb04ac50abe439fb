package sandbox

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/tracer"
)

// The escape suite traces the techniques that Landlock cannot stop (the
// dynamic-loader trick) with the eBPF tracer, loaded once.
var (
	suiteTracerOnce sync.Once
	suiteTracer     *tracer.Tracer
	suiteTracerErr  error
)

// requireTracer returns the shared tracer, or skips (fails under CI=true)
// when it cannot be loaded.
func requireTracer(t *testing.T) *tracer.Tracer {
	t.Helper()
	suiteTracerOnce.Do(func() { suiteTracer, suiteTracerErr = tracer.Load(tracer.Options{RingBytes: 4 << 20}, nil) })
	if suiteTracerErr != nil {
		if inCI() {
			t.Fatalf("needs the eBPF tracer: %v", suiteTracerErr)
		}
		t.Skipf("needs the eBPF tracer (root, BPF): %v", suiteTracerErr)
	}
	return suiteTracer
}

// runTraced runs spec like runChild, tracing the command's tree.
func runTraced(t *testing.T, tr *tracer.Tracer, spec Spec) (childResult, []tracer.Event) {
	t.Helper()
	var out, errb bytes.Buffer
	c, err := Start(testBinary(t), spec, strings.NewReader(""), &out, &errb)
	if err != nil {
		return childResult{err: err}, nil
	}
	sess, err := tr.TrackWith(c.Pid(), tracer.TrackOptions{FromExec: true})
	if err != nil {
		c.Kill()
		c.Wait()
		t.Fatalf("track: %v", err)
	}
	var events []tracer.Event
	done := make(chan struct{})
	go func() {
		for batch := range sess.Events() {
			events = append(events, batch...)
		}
		close(done)
	}()
	relErr := c.Release()
	status, waitErr := c.Wait()
	sum, cerr := sess.Close()
	<-done
	if cerr != nil || sum.Lost > 0 {
		t.Fatalf("trace: %v, %d lost", cerr, sum.Lost)
	}
	if relErr == nil {
		relErr = waitErr
	}
	return childResult{status: status, stdout: out.String(), stderr: errb.String(), err: relErr}, events
}

// detectLdsoExec reruns the loader technique traced and looks for the
// program's execution through the loader in the events.
func detectLdsoExec(t *testing.T, f escapeFixture, spec Spec) (bool, string) {
	tr := requireTracer(t)
	c, events := runTraced(t, tr, spec)
	prog := f.readonly + "/prog"
	root, err := policy.NewRoot("/")
	if err != nil {
		t.Fatal(err)
	}
	for _, le := range tracer.FindLoaderExecs(events, root.Realpath) {
		if le.Program == prog && le.Ret >= 0 {
			return true, fmt.Sprintf("trace: pid %d ran %s through %s (status %d)", le.PID, le.Program, le.Loader, c.status)
		}
	}
	return false, fmt.Sprintf("%d events, no loader exec of %s", len(events), prog)
}
