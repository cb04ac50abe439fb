package tracer

import (
	"io"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/sandbox"
	"github.com/authbench/authbench/tracer/trace"
)

// BenchmarkReaderCPUPerEvent is what an event costs while a traced helper
// opens a file b.N times: reader-ns/event is the CPU time of this process
// (reading the ring buffer, decoding, delivering in batches and writing
// JSON lines, as `authbench trace --out` does), bpf-ns/event the run time
// of the tracer's programs (every syscall of the machine meanwhile, divided
// by the events). `make bench-trace` runs it.
func BenchmarkReaderCPUPerEvent(b *testing.B) {
	tr := loadTracer(b, Options{})
	stats, err := ebpf.EnableStats(uint32(unix.BPF_STATS_RUN_TIME))
	if err != nil {
		b.Fatalf("enable BPF run-time statistics: %v", err)
	}
	defer stats.Close()
	bpfTime := func() (d time.Duration) {
		for _, p := range tr.objs.programs() {
			st, err := p.Stats()
			if err != nil {
				b.Fatal(err)
			}
			d += st.Runtime
		}
		return d
	}
	bpf0 := bpfTime()
	opens := helperBin(b, "opens")
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	argv := []string{opens, strconv.Itoa(b.N), "/dev/null"}
	var before, after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	child, err := sandbox.Start(self, sandbox.Launch{Path: opens, Args: argv}, nil, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	sess, err := tr.TrackWith(child.Pid(), TrackOptions{FromExec: true})
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- WriteSession(trace.NewWriter(io.Discard), sess) }()
	if err := child.Release(); err != nil {
		b.Fatal(err)
	}
	if code, err := child.Wait(); err != nil || code != 0 {
		b.Fatalf("helper: exit %d, %v", code, err)
	}
	sum, err := sess.Close()
	if err != nil {
		b.Fatal(err)
	}
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	bpf := bpfTime() - bpf0
	if sum.Lost > 0 || sum.Events < uint64(b.N) {
		b.Fatalf("%d events, %d lost, for %d opens", sum.Events, sum.Lost, b.N)
	}
	cpu := after.Utime.Nano() - before.Utime.Nano() + after.Stime.Nano() - before.Stime.Nano()
	b.ReportMetric(float64(cpu)/float64(sum.Events), "reader-ns/event")
	b.ReportMetric(float64(bpf.Nanoseconds())/float64(sum.Events), "bpf-ns/event")
}
