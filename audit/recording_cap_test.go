package audit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/tracer/trace"
)

// fakeSession delivers batches of events, then its summary.
type fakeSession struct {
	ch  chan []trace.Event
	sum trace.Summary
}

func (s *fakeSession) Events() <-chan []trace.Event  { return s.ch }
func (s *fakeSession) Recycle([]trace.Event)         {}
func (s *fakeSession) Close() (trace.Summary, error) { return s.sum, nil }

// TestCappedLogSummaryCountsTheDropped: an event log capped at 2,000
// bytes holds a few of 500 events; its last line must not say "lost":0
// (as it did), but count the dropped events as lost, beside the
// kernel's 3, and as dropped, agreeing with the truncation line.
func TestCappedLogSummaryCountsTheDropped(t *testing.T) {
	const n, kernelLost = 500, 3
	sess := &fakeSession{ch: make(chan []trace.Event, 1), sum: trace.Summary{Events: n, Lost: kernelLost}}
	batch := make([]trace.Event, n)
	for i := range batch {
		batch[i] = trace.Event{TS: int64(i + 1), PID: 7, TGID: 7, Comm: "cat", Op: trace.OpOpen, Path: "/etc/hostname"}
	}
	sess.ch <- batch
	close(sess.ch)
	file := filepath.Join(t.TempDir(), "events.jsonl")
	rec, err := RecordWith(sess, file, New(nil, nil), nil, RecordOptions{MaxBytes: 2000})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := rec.Close()
	if err != nil || sum.Lost != kernelLost {
		t.Fatalf("Close: %+v %v (want the session's summary)", sum, err)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stored := 0
	end, err := ReadLog(f, func(*trace.Event) error { stored++; return nil })
	if err != nil || end.Summary == nil {
		t.Fatalf("log end %+v, %v", end, err)
	}
	dropped := uint64(n - stored)
	if stored == 0 || dropped == 0 || end.Dropped != dropped || rec.Dropped() != dropped {
		t.Fatalf("%d stored, truncation line says %d dropped, recording %d", stored, end.Dropped, rec.Dropped())
	}
	if end.Summary.Lost != kernelLost+dropped || end.Summary.Dropped != dropped {
		data, _ := os.ReadFile(file)
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		t.Fatalf("summary line %s: want lost %d, dropped %d", lines[len(lines)-1], kernelLost+dropped, dropped)
	}
	t.Logf("%d of %d events stored, %d dropped: summary lost %d", stored, n, dropped, end.Summary.Lost)
	var raw map[string]any
	data, _ := os.ReadFile(file)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &raw); err != nil || raw["op"] != "summary" {
		t.Fatalf("last line %q: %v", lines[len(lines)-1], err)
	}
}

// TestUncappedLogSummaryIsUnchanged: without drops the summary line
// stays {"op":"summary","events":N,"lost":M}.
func TestUncappedLogSummaryIsUnchanged(t *testing.T) {
	sess := &fakeSession{ch: make(chan []trace.Event, 1), sum: trace.Summary{Events: 1, Lost: 2}}
	sess.ch <- []trace.Event{{TS: 1, PID: 7, TGID: 7, Comm: "cat", Op: trace.OpOpen, Path: "/a"}}
	close(sess.ch)
	file := filepath.Join(t.TempDir(), "events.jsonl")
	rec, err := RecordWith(sess, file, New(nil, nil), nil, RecordOptions{MaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(file)
	if !strings.HasSuffix(string(data), "\n"+`{"op":"summary","events":1,"lost":2}`+"\n") {
		t.Fatalf("log %q", data)
	}
}
