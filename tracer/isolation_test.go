package tracer

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/authbench/authbench/tracer/trace"
)

// TestIsolation: while a traced workload runs, a noisy workload outside
// the tree (and a second traced session) open files at the same time; the
// first session must contain none of their events.
func TestIsolation(t *testing.T) {
	tr := loadTracer(t, Options{})
	opens := helperBin(t, "opens")
	dir := t.TempDir()
	inside, outside, other := filepath.Join(dir, "inside"), filepath.Join(dir, "outside"), filepath.Join(dir, "other")
	for _, p := range []string{inside, outside, other} {
		writeFile(t, p, "x")
	}

	// Noise outside any tree: a process the tracer was never told about.
	noise := exec.Command(opens, "300000", outside)
	if err := noise.Start(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var otherRun run
	wg.Add(1)
	go func() { // a concurrent second session, demultiplexed from the first
		defer wg.Done()
		otherRun = runTraced(t, tr, "/", []string{opens, "50000", other}, func(ev *trace.Event) bool {
			return ev.Op == trace.OpOpen && !strings.HasPrefix(ev.Path, "/etc/") && !strings.HasPrefix(ev.Path, "/lib")
		})
	}()
	r := runTraced(t, tr, "/", []string{opens, "50000", inside}, nil)
	wg.Wait()
	if err := noise.Wait(); err != nil {
		t.Fatalf("noise: %v", err)
	}
	for _, rr := range []struct {
		name string
		r    run
		own  string
	}{{"first", r, inside}, {"second", otherRun, other}} {
		own := count(rr.r.events, func(ev *trace.Event) bool { return ev.Path == rr.own })
		foreign := count(rr.r.events, func(ev *trace.Event) bool {
			return ev.Path == outside || (ev.Path != rr.own && (ev.Path == inside || ev.Path == other))
		})
		stranger := count(rr.r.events, func(ev *trace.Event) bool { return ev.TGID != rr.r.root })
		t.Logf("%s session: %d events, %d of its own target, %d foreign, lost %d", rr.name, rr.r.sum.Events, own, foreign, rr.r.sum.Lost)
		if own != 50000 {
			t.Errorf("%s session: %d opens of its target, want 50000", rr.name, own)
		}
		if foreign != 0 || stranger != 0 {
			t.Errorf("%s session: %d events of other workloads, %d of processes outside its tree", rr.name, foreign, stranger)
		}
	}
}

// TestEightConcurrentSessions: eight traced runs at once (the daemon's
// load) each get exactly their own tree's events.
func TestEightConcurrentSessions(t *testing.T) {
	tr := loadTracer(t, Options{})
	opens := helperBin(t, "opens")
	dir := t.TempDir()
	const n, opensEach = 8, 20000
	runs := make([]run, n)
	targets := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		targets[i] = filepath.Join(dir, "target"+strconv.Itoa(i))
		writeFile(t, targets[i], "x")
		wg.Add(1)
		go func() {
			defer wg.Done()
			runs[i] = runTraced(t, tr, "/", []string{opens, strconv.Itoa(opensEach), targets[i]}, func(ev *trace.Event) bool {
				return strings.HasPrefix(ev.Path, dir)
			})
		}()
	}
	wg.Wait()
	for i, r := range runs {
		own := count(r.events, func(ev *trace.Event) bool { return ev.Path == targets[i] && ev.TGID == r.root })
		if own != opensEach || len(r.events) != opensEach || r.sum.Lost != 0 {
			t.Errorf("session %d: %d opens of its target, %d events under %s, lost %d; want %d, %d, 0",
				i, own, len(r.events), dir, r.sum.Lost, opensEach, opensEach)
		}
	}
}
