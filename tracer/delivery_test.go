package tracer

import (
	"testing"
	"time"

	"github.com/authbench/authbench/tracer/trace"
)

// newTestSession is a session of no tracer's kernel side, for the
// delivery logic alone.
func newTestSession(maxQueued int) *Session {
	return &Session{
		t:   &Tracer{maxQueued: maxQueued},
		out: make(chan []trace.Event, outBatches), delivered: make(chan struct{}), free: make(chan []trace.Event, outBatches+1),
	}
}

// TestRecycledBatchIsReused: a batch given back with Recycle is the one
// the reader fills next (no new allocation), and the events handed over
// are the ones pushed, in order.
func TestRecycledBatchIsReused(t *testing.T) {
	s := newTestSession(100)
	for i := range 3 {
		s.push(trace.Event{PID: i}, false)
	}
	if s.flush() {
		t.Fatal("flush left events queued with room in the channel")
	}
	batch := <-s.out
	if len(batch) != 3 || batch[0].PID != 0 || batch[2].PID != 2 {
		t.Fatalf("first batch = %+v", batch)
	}
	s.Recycle(batch)
	s.push(trace.Event{PID: 7}, false)
	s.flush()
	next := <-s.out
	if len(next) != 1 || next[0].PID != 7 {
		t.Fatalf("second batch = %+v", next)
	}
	if &next[:1][0] != &batch[:1][0] {
		t.Error("the recycled batch was not reused")
	}
}

// TestFlushKeepsQueueWhenConsumerBehind: with the Events channel full the
// reader does not block; the queue is kept and handed over later, in
// order, and finish delivers what is left before closing Events.
func TestFlushKeepsQueueWhenConsumerBehind(t *testing.T) {
	s := newTestSession(1000)
	n := 0
	for range outBatches {
		s.push(trace.Event{PID: n}, false)
		n++
		if s.flush() {
			t.Fatal("channel full too early")
		}
	}
	s.push(trace.Event{PID: n}, false)
	n++
	done := make(chan bool)
	go func() { done <- s.flush() }()
	select {
	case pending := <-done:
		if !pending {
			t.Fatal("flush reported nothing pending with the channel full")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("flush blocked on a full channel")
	}
	s.push(trace.Event{PID: n}, false)
	n++
	s.finish()
	want := 0
	for batch := range s.out {
		for _, ev := range batch {
			if ev.PID != want {
				t.Fatalf("event %d arrived as %d (order lost)", ev.PID, want)
			}
			want++
		}
	}
	if want != n {
		t.Errorf("delivered %d events, pushed %d", want, n)
	}
	<-s.delivered
	s.finish() // a second finish does nothing (no double close)
}

// TestReaderWaitsInPoller: on a kernel the tracer supports, the ring
// buffer's descriptor is taken by the Go poller, so the reader waits
// parked rather than blocked in epoll_wait (see ringWaiter).
func TestReaderWaitsInPoller(t *testing.T) {
	tr := loadTracer(t, Options{})
	if tr.waiter == nil {
		t.Fatal("the ring buffer is not in the Go poller: the reader blocks a thread in epoll_wait")
	}
}
