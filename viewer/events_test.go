package viewer

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/authbench/authbench/tracer/trace"
)

// eventLog is n events written by the tracer's writer.
func eventLog(t *testing.T, n int, extra ...string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := trace.NewWriter(&b)
	for _, ev := range fixtureEvents(n) {
		if err := w.Write(&ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(trace.Summary{Events: uint64(n), Lost: 2}); err != nil {
		t.Fatal(err)
	}
	for _, l := range extra {
		b.WriteString(l + "\n")
	}
	return b.Bytes()
}

func TestScanEvents(t *testing.T) {
	long := `{"op":"open","path":"/` + strings.Repeat("x", maxEventLine+10) + `"}`
	log := eventLog(t, 30, long, "not json")
	for _, c := range []struct {
		name          string
		query         string
		page          int
		limit         int64
		events, match int
		next, cut     bool
		skipped       int
	}{
		{"all", "", 0, maxEventBytes, 30, 30, false, false, 2},
		{"search", "secret", 0, maxEventBytes, 3, 3, false, false, 2},
		{"page past the end", "", 5, maxEventBytes, 0, 30, false, false, 2},
		{"negative page", "secret", -3, maxEventBytes, 3, 3, false, false, 2},
		{"cut by the byte bound", "", 0, 500, 3, 3, false, true, 0},
	} {
		p, err := ScanEvents(bytes.NewReader(log), c.query, c.page, c.limit)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(p.Events) != c.events || p.Matched != c.match || p.HasNext != c.next || p.Cut != c.cut || p.Skipped != c.skipped {
			t.Errorf("%s: events %d matched %d next %v cut %v skipped %d; want %d %d %v %v %d", c.name,
				len(p.Events), p.Matched, p.HasNext, p.Cut, p.Skipped, c.events, c.match, c.next, c.cut, c.skipped)
		}
	}
	p, err := ScanEvents(bytes.NewReader(log), "", 0, maxEventBytes)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Summary, `"lost":2`) {
		t.Errorf("summary line %q", p.Summary)
	}
	if p.Events[0].Path != "/data/secret.txt" || p.Events[0].Errno != "EACCES" || p.Events[0].N != 1 {
		t.Errorf("first event %+v", p.Events[0])
	}
}

func TestScanEventsPagesLargeLog(t *testing.T) {
	log := eventLog(t, 1000)
	seen := 0
	for page := 0; ; page++ {
		p, err := ScanEvents(bytes.NewReader(log), "", page, maxEventBytes)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Events) > 0 && p.Events[0].N != page*EventsPerPage+1 {
			t.Errorf("page %d starts at line %d", page, p.Events[0].N)
		}
		seen += len(p.Events)
		if !p.HasNext {
			break
		}
	}
	if seen != 1000 {
		t.Errorf("the pages hold %d events, want 1000", seen)
	}
}

// BenchmarkScanEvents measures one search over a 100k-event log.
func BenchmarkScanEvents(b *testing.B) {
	var buf bytes.Buffer
	w := trace.NewWriter(&buf)
	for _, ev := range fixtureEvents(100000) {
		_ = w.Write(&ev)
	}
	_ = w.Close(trace.Summary{})
	log := buf.Bytes()
	b.SetBytes(int64(len(log)))
	for b.Loop() {
		if _, err := ScanEvents(io.NopCloser(bytes.NewReader(log)), "secret", 10, maxEventBytes); err != nil {
			b.Fatal(err)
		}
	}
}
