package netproxy

import (
	"encoding/json"
	"io"
	"sync"

	"github.com/authbench/authbench/netproxy/netpolicy"
)

// Sink receives a proxy's events, from several goroutines at once.
type Sink interface{ Event(netpolicy.Event) }

// Log is a Sink that keeps a bounded list of events and writes each as a
// JSON line to W (when set). Past Max events (0: DefaultMaxEvents) the
// list keeps counting but stops growing (Dropped), and nothing more is
// written but a count at Close.
type Log struct {
	W   io.Writer
	Max int

	mu      sync.Mutex
	events  []netpolicy.Event
	dropped int
	err     error
}

// DefaultMaxEvents bounds a Log without Max.
const DefaultMaxEvents = 100_000

// Event records e.
func (l *Log) Event(e netpolicy.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	limit := l.Max
	if limit <= 0 {
		limit = DefaultMaxEvents
	}
	if len(l.events) >= limit {
		l.dropped++
		return
	}
	l.events = append(l.events, e)
	if l.W != nil && l.err == nil {
		b, err := json.Marshal(e)
		if err == nil {
			_, err = l.W.Write(append(b, '\n'))
		}
		l.err = err
	}
}

// Events returns the events kept so far, and how many were dropped past
// the bound.
func (l *Log) Events() (events []netpolicy.Event, dropped int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]netpolicy.Event(nil), l.events...), l.dropped
}

// Err is the first error writing to W.
func (l *Log) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}
