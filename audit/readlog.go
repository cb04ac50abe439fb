package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/authbench/authbench/tracer/trace"
)

// LogEnd is what an event log (a Recording's file) says of itself after
// its events.
type LogEnd struct {
	// Summary is the summary line; nil when the log has none (the
	// recording was not finished).
	Summary *trace.Summary
	// Dropped counts the events not stored (the truncation line); 0 when
	// the log was not truncated.
	Dropped uint64
}

// ReadLog reads an event log: each is called with every event line, in
// order; the truncation and summary lines are returned, not passed on.
// An error of each stops the reading and is returned.
func ReadLog(r io.Reader, each func(*trace.Event) error) (LogEnd, error) {
	var end LogEnd
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, rerr := br.ReadBytes('\n')
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return end, fmt.Errorf("event log: %w", rerr)
		}
		if err := readLogLine(bytes.TrimSpace(line), &end, each); err != nil {
			return end, fmt.Errorf("event log line %d: %w", n, err)
		}
		if rerr != nil {
			return end, nil
		}
	}
}

func readLogLine(line []byte, end *LogEnd, each func(*trace.Event) error) error {
	switch {
	case len(line) == 0:
		return nil
	case bytes.HasPrefix(line, []byte(`{"op":"summary"`)):
		var s trace.Summary
		if err := json.Unmarshal(line, &s); err != nil {
			return fmt.Errorf("summary: %w", err)
		}
		end.Summary = &s
		return nil
	case bytes.HasPrefix(line, []byte(`{"op":"truncated"`)):
		var t struct {
			Dropped uint64 `json:"dropped_events"`
		}
		if err := json.Unmarshal(line, &t); err != nil {
			return fmt.Errorf("truncation: %w", err)
		}
		end.Dropped = t.Dropped
		return nil
	}
	var ev trace.Event
	if err := ev.UnmarshalJSON(line); err != nil {
		return err
	}
	return each(&ev)
}
