package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/tracer"
	"github.com/authbench/authbench/tracer/trace"
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
func runTraced(t *testing.T, tr *tracer.Tracer, spec Launch) (childResult, []trace.Event) {
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
	var events []trace.Event
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
func detectLdsoExec(t *testing.T, f escapeFixture, spec Launch) (bool, string) {
	tr := requireTracer(t)
	c, events := runTraced(t, tr, spec)
	prog := f.readonly + "/prog"
	root, err := policy.NewRoot("/")
	if err != nil {
		t.Fatal(err)
	}
	for _, le := range trace.FindLoaderExecs(events, root.Realpath) {
		if le.Program == prog && le.Ret >= 0 {
			return true, fmt.Sprintf("trace: pid %d ran %s through %s (status %d)", le.PID, le.Program, le.Loader, c.status)
		}
	}
	return false, fmt.Sprintf("%d events, no loader exec of %s", len(events), prog)
}

// preloadMarker is what the preloaded library's constructor prints.
const preloadMarker = "preloaded-library-ran"

// preloadedLibrary prints preloadMarker from its constructor, with raw
// system calls (no libc, so it loads into any program).
const preloadedLibrary = `
static long sys3(long n, long a, long b, long c) {
#if defined(__x86_64__)
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
	return r;
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	__asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
	return x0;
#endif
}
#if defined(__x86_64__)
#define SYS_WRITE 1
#else
#define SYS_WRITE 64
#endif
__attribute__((constructor)) static void ran(void) {
	static const char msg[] = "` + preloadMarker + ` ";
	sys3(SYS_WRITE, 1, (long)msg, sizeof msg - 1);
}
`

// withPreloadedLibrary builds the library into the writable dir (as an
// agent that may write there would) and names it in LD_PRELOAD: Landlock's
// EXECUTE governs execve only, so the allowed program maps and runs it.
func withPreloadedLibrary(t *testing.T, f escapeFixture, _ *escapeWorld, s *Launch) func() {
	src := f.x + "/preload.c"
	if err := os.WriteFile(src, []byte(preloadedLibrary), 0o644); err != nil {
		t.Fatal(err)
	}
	lib := f.allowed + "/libpreload.so"
	if out, err := exec.Command("gcc", "-shared", "-fPIC", "-nostdlib", "-O2", "-o", lib, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc (the escape suite needs it): %v\n%s", err, out)
	}
	s.Env = append(s.Env, "LD_PRELOAD="+lib)
	return nil
}

// detectMmapExec reruns the technique traced and looks for the library
// mapped executable in the events.
func detectMmapExec(t *testing.T, f escapeFixture, spec Launch) (bool, string) {
	tr := requireTracer(t)
	_, events := runTraced(t, tr, spec)
	lib := f.allowed + "/libpreload.so"
	for _, ev := range events {
		if ev.Op == trace.OpMmap && ev.Real == lib && !ev.Failed() {
			return true, fmt.Sprintf("trace: pid %d (%s) mapped %s executable (%s)", ev.TGID, ev.Comm, lib, ev.Syscall)
		}
	}
	return false, fmt.Sprintf("%d events, no executable mapping of %s", len(events), lib)
}
