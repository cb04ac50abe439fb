package tracer

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/cilium/ebpf"
	"go.uber.org/zap/zaptest"

	"github.com/authbench/authbench/sandbox"
	"github.com/authbench/authbench/tracer/trace"
)

// helperEnv selects a helper mode of the re-executed test binary.
const helperEnv = "AUTHBENCH_TRACER_TEST_HELPER"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.InitCommand {
		_ = sandbox.RunInit()
		os.Exit(sandbox.ExitInitFailure)
	}
	switch os.Getenv(helperEnv) {
	case "load":
		tr, err := Load(Options{}, nil)
		if err != nil {
			fmt.Println(err)
			os.Exit(3)
		}
		tr.Close()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// loadTracer loads a tracer or, when the machine cannot trace, skips the
// test (fails it under CI=true, where tracing is required).
func loadTracer(t testing.TB, opts Options) *Tracer {
	t.Helper()
	tr, err := Load(opts, zaptest.NewLogger(t))
	if err != nil {
		var ve *ebpf.VerifierError
		if errors.As(err, &ve) {
			t.Fatalf("the verifier rejected a program (a bug, not a missing feature): %v", err)
		}
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and eBPF tracing is unavailable: %v", err)
		}
		t.Skipf("eBPF tracing unavailable (needs root: CAP_BPF+CAP_PERFMON, BTF tracepoints, ring buffers, kernel BTF): %v", err)
	}
	t.Cleanup(func() {
		if err := tr.Close(); err != nil {
			t.Errorf("close tracer: %v", err)
		}
	})
	return tr
}

// needTool skips (or under CI fails) when a program the test drives is missing.
func needTool(t testing.TB, names ...string) {
	t.Helper()
	for _, name := range names {
		if _, err := exec.LookPath(name); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("CI=true and %s is not installed (make deps)", name)
			}
			t.Skipf("%s is not installed", name)
		}
	}
}

var (
	helperOnce sync.Once
	helperDir  string
	helperErr  error
)

// helperBin compiles testdata/NAME.c (once per test binary) and returns
// the program's path.
func helperBin(t testing.TB, name string) string {
	t.Helper()
	needTool(t, "gcc")
	helperOnce.Do(func() {
		helperDir, helperErr = os.MkdirTemp("", "tracer-helpers-")
		if helperErr != nil {
			return
		}
		for _, n := range []string{"opens", "forker", "threads", "int80", "race", "tree", "uring", "opath", "mapexec", "capops"} {
			out, err := exec.Command("gcc", "-O2", "-pthread", "-no-pie", "-o", filepath.Join(helperDir, n),
				filepath.Join("testdata", n+".c")).CombinedOutput()
			if err != nil {
				helperErr = fmt.Errorf("compile %s.c: %v\n%s", n, err, out)
				return
			}
		}
	})
	if helperErr != nil {
		t.Fatal(helperErr)
	}
	return filepath.Join(helperDir, name)
}

// run is the outcome of one traced command.
type run struct {
	root   int
	events []trace.Event
	sum    trace.Summary
	code   int
	relErr error // sandbox-init's error before exec, if any
}

// runTraced runs argv (argv[0] absolute, or looked up in PATH) in dir as a
// traced sandbox-init child and collects its session. keep filters the
// events kept in memory (nil keeps all); every event is still counted.
func runTraced(t *testing.T, tr *Tracer, dir string, argv []string, keep func(*trace.Event) bool) run {
	t.Helper()
	prog := argv[0]
	if !filepath.IsAbs(prog) {
		p, err := exec.LookPath(prog)
		if err != nil {
			t.Fatalf("look up %s: %v", prog, err)
		}
		prog = p
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	spec := sandbox.Launch{Path: prog, Args: argv, Env: os.Environ(), Dir: dir}
	child, err := sandbox.Start(self, spec, nil, os.Stderr, os.Stderr)
	if err != nil {
		t.Fatalf("start %v: %v", argv, err)
	}
	sess, err := tr.Track(child.Pid())
	if err != nil {
		_ = child.Kill()
		_, _ = child.Wait()
		t.Fatalf("track %v: %v", argv, err)
	}
	var r run
	r.root = child.Pid()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for batch := range sess.Events() {
			for i := range batch {
				if keep == nil || keep(&batch[i]) {
					r.events = append(r.events, batch[i])
				}
			}
		}
	}()
	r.relErr = child.Release()
	var ie *sandbox.InitError
	if r.relErr != nil && !errors.As(r.relErr, &ie) {
		t.Fatalf("release %v: %v", argv, r.relErr)
	}
	r.code, err = child.Wait()
	if err != nil {
		t.Fatalf("wait %v: %v", argv, err)
	}
	r.sum, err = sess.Close()
	if err != nil {
		t.Fatalf("close session of %v: %v", argv, err)
	}
	<-done
	return r
}

// count returns how many events satisfy f.
func count(evs []trace.Event, f func(*trace.Event) bool) int {
	n := 0
	for i := range evs {
		if f(&evs[i]) {
			n++
		}
	}
	return n
}
