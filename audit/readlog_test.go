package audit

import (
	"errors"
	"strings"
	"testing"

	"github.com/authbench/authbench/tracer/trace"
)

func TestReadLog(t *testing.T) {
	log := `{"ts":1,"pid":2,"tgid":2,"ppid":1,"comm":"cat","op":"open","path":"/app/a","axis":"read","ret":0}
{"ts":2,"pid":2,"tgid":2,"ppid":1,"comm":"cat","op":"exit","path":"","axis":"","ret":0}
{"op":"truncated","after_bytes":180,"dropped_events":7}
{"op":"summary","events":9,"lost":3}
`
	var ops []string
	end, err := ReadLog(strings.NewReader(log), func(ev *trace.Event) error {
		ops = append(ops, string(ev.Op))
		return nil
	})
	if err != nil || strings.Join(ops, ",") != "open,exit" || end.Dropped != 7 || end.Summary == nil || *end.Summary != (trace.Summary{Events: 9, Lost: 3}) {
		t.Fatalf("ops %v, end %+v, err %v", ops, end, err)
	}
	// An unfinished log (no summary line, the last line cut short).
	end, err = ReadLog(strings.NewReader(strings.SplitAfter(log, "\n")[0]), func(*trace.Event) error { return nil })
	if err != nil || end.Summary != nil || end.Dropped != 0 {
		t.Fatalf("unfinished log: %+v %v", end, err)
	}
	if _, err := ReadLog(strings.NewReader("\n{broken\n"), func(*trace.Event) error { return nil }); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("broken line: %v", err)
	}
	stop := errors.New("stop")
	if _, err := ReadLog(strings.NewReader(log), func(*trace.Event) error { return stop }); !errors.Is(err, stop) {
		t.Fatalf("each's error: %v", err)
	}
}
