package viewer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/authbench/authbench/tracer/trace"
)

// EventsPerPage is how many events one page of a run's events shows.
const EventsPerPage = 200

// maxEventLine bounds one line of an event log (a longer one is skipped
// and counted).
const maxEventLine = 1 << 20

// EventsPage is one page of a run's events that contain a search text.
type EventsPage struct {
	Query string
	// Page is the page shown (from 0); Matched counts the lines that
	// contain Query, Scanned every line read.
	Page, Matched, Scanned int
	Events                 []EventRow
	// HasNext: a later page has events; Cut: the scan stopped at its byte
	// bound; Skipped counts lines too long or not events.
	HasNext, Cut bool
	Skipped      int
	// Summary is the log's closing line (events, lost), if it was read.
	Summary string
}

// EventRow is one event as the events table shows it.
type EventRow struct {
	N int // line number, from 1
	trace.Event
}

// ScanEvents reads the event log r (JSON lines, at most limit bytes) and
// returns the page-th page of the events whose line contains query (all
// when query is empty), EventsPerPage a page. Lines are matched as they
// are read; only the page's are decoded, so a large log costs one pass
// and constant memory.
func ScanEvents(r io.Reader, query string, page int, limit int64) (*EventsPage, error) {
	if page < 0 {
		page = 0
	}
	out := &EventsPage{Query: query, Page: page}
	lr := &io.LimitedReader{R: r, N: limit}
	br := bufio.NewReaderSize(lr, 256<<10)
	q := []byte(query)
	first := page * EventsPerPage
	for {
		line, err := readLine(br)
		if errors.Is(err, errLongLine) {
			out.Skipped++
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read events: %w", err)
		}
		out.Cut = lr.N <= 0
		switch {
		case len(line) == 0:
		case err != nil && out.Cut: // the bound cut this line short
		case line[0] != '{':
			out.Skipped++
		default:
			out.Scanned++
			out.take(line, q, first)
		}
		if err != nil {
			break
		}
	}
	return out, nil
}

// take counts one line and keeps it when it is on the page.
func (p *EventsPage) take(line, q []byte, first int) {
	if bytes.HasPrefix(line, []byte(`{"op":"summary"`)) || bytes.HasPrefix(line, []byte(`{"op":"truncated"`)) {
		p.Summary += string(line) + " "
		return
	}
	if len(q) > 0 && !bytes.Contains(line, q) {
		return
	}
	p.Matched++
	n := p.Matched - 1
	switch {
	case n < first:
	case n < first+EventsPerPage:
		var ev trace.Event
		if json.Unmarshal(line, &ev) != nil {
			p.Skipped++
			return
		}
		p.Events = append(p.Events, EventRow{N: p.Scanned, Event: ev})
	default:
		p.HasNext = true
	}
}

var errLongLine = errors.New("line too long")

// readLine reads one line without its newline (valid until the next
// read); a line longer than maxEventLine is read through and errLongLine
// returned.
func readLine(br *bufio.Reader) ([]byte, error) {
	chunk, err := br.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return bytes.TrimRight(chunk, "\r\n"), err
	}
	buf := append([]byte(nil), chunk...)
	for errors.Is(err, bufio.ErrBufferFull) {
		chunk, err = br.ReadSlice('\n')
		if buf != nil && len(buf)+len(chunk) <= maxEventLine {
			buf = append(buf, chunk...)
		} else {
			buf = nil // too long: read through to its end
		}
	}
	if buf == nil {
		return nil, errLongLine
	}
	return bytes.TrimRight(buf, "\r\n"), err
}
