package tracer

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/authbench/authbench/tracer/trace"
)

// TestLoadMillionOpens: a workload doing 1,000,000 opens loses nothing at
// the default ring size.
func TestLoadMillionOpens(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	tr := loadTracer(t, Options{})
	opens := helperBin(t, "opens")
	target := filepath.Join(t.TempDir(), "target")
	writeFile(t, target, "x")
	const n = 1_000_000
	start := time.Now()
	r := runTraced(t, tr, "/", []string{opens, strconv.Itoa(n), target}, func(ev *trace.Event) bool { return false })
	t.Logf("%d opens traced in %v: %d events, %d lost", n, time.Since(start), r.sum.Events, r.sum.Lost)
	if r.code != 0 {
		t.Fatalf("workload exited %d", r.code)
	}
	if r.sum.Lost != 0 {
		t.Errorf("lost %d events at the default ring size", r.sum.Lost)
	}
	if r.sum.Events < n {
		t.Errorf("%d events, want at least %d", r.sum.Events, n)
	}
}

// TestTinyRingReportsLoss: with a one-page ring buffer the same kind of
// workload overflows it, and the loss is reported: events + lost covers
// every open.
func TestTinyRingReportsLoss(t *testing.T) {
	tr := loadTracer(t, Options{RingBytes: os.Getpagesize()})
	opens := helperBin(t, "opens")
	target := filepath.Join(t.TempDir(), "target")
	writeFile(t, target, "x")
	const n = 200_000
	var seen int
	r := runTraced(t, tr, "/", []string{opens, strconv.Itoa(n), target}, func(ev *trace.Event) bool {
		if ev.Op == trace.OpOpen && ev.Path == target {
			seen++
		}
		return false
	})
	t.Logf("ring %d bytes: %d events, %d lost", tr.RingBytes(), r.sum.Events, r.sum.Lost)
	if r.sum.Lost == 0 {
		t.Fatalf("a %d-byte ring lost nothing over %d opens; the loss path is untested", tr.RingBytes(), n)
	}
	if uint64(seen)+r.sum.Lost < n {
		t.Errorf("%d opens seen + %d lost < %d opens done: a loss went uncounted", seen, r.sum.Lost, n)
	}
	st, err := tr.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if st.RingFull == 0 {
		t.Errorf("tracer stats show no ring-full drops: %+v", st)
	}
}
