package tracer

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/ringbuf"
	"go.uber.org/zap"
)

// pollInterval bounds how long a record can wait in the ring buffer: the
// kernel side wakes the reader only for batches (see wakeBytes) and for
// drain markers (Session.Close). Every wake-up of the reader costs the
// traced work CPU on a small machine (the reader's thread, the consumer's
// goroutine, the Go scheduler's spinning threads): at 10 ms the reader
// took about twice the CPU it takes at 50 ms on the 20k-file read of
// `make bench-trace`. Consumers see events at most this much later.
const pollInterval = 50 * time.Millisecond

// Queued events are delivered in batches: once the ring buffer is empty
// and at least flushMin records were read, after flushMax records, and
// at each poll timeout (so an event waits at most about pollInterval).
// While the reader keeps up with a producer the ring is empty after almost
// every record; delivering each time would cost a wake-up per event.
const (
	flushMin = 256
	flushMax = 4096
)

// readLoop reads the ring buffer until the reader is closed and hands
// every record to its session's queue, delivering the queues in batches.
// It waits for data in the poller (t.waiter) when it can, else blocked
// in the ring-buffer reader (readLoopBlocking).
func (t *Tracer) readLoop() {
	defer close(t.readerEnd)
	if t.waiter == nil {
		t.readLoopBlocking()
		return
	}
	var rec ringbuf.Record
	t.rd.SetDeadline(time.Unix(1, 0)) // never block: wait in the poller
	ready := func() bool { return t.rd.AvailableBytes() > 0 }
	unread := 0
	for {
		if unread >= flushMax {
			t.flush()
			unread = 0
		}
		err := t.rd.ReadInto(&rec)
		switch {
		case err == nil:
			t.dispatch(rec.RawSample)
			unread++
			continue
		case errors.Is(err, ringbuf.ErrClosed):
			return
		case !errors.Is(err, os.ErrDeadlineExceeded):
			t.log.Error("read trace ring buffer", zap.Error(err))
			continue
		}
		// The ring is empty: a moment to follow the wall clock.
		t.bootOffset.Store(bootOffset())
		if unread >= flushMin {
			t.flush()
			unread = 0
		}
		woken, err := t.waiter.wait(ready, pollInterval)
		if err != nil && t.stopping.Load() { // Close: what is in the ring is delivered
			t.drain(&rec)
			return
		}
		if err != nil {
			t.log.Error("wait for the trace ring buffer", zap.Error(err))
			time.Sleep(pollInterval)
			continue
		}
		if !woken {
			t.flush()
			unread = 0
		}
	}
}

// readLoopBlocking is readLoop waiting in the ring-buffer reader's
// epoll_wait, for a ring buffer the poller does not take.
func (t *Tracer) readLoopBlocking() {
	var rec ringbuf.Record
	t.rd.SetDeadline(time.Now().Add(pollInterval))
	unread := 0
	for {
		if unread >= flushMax || (unread >= flushMin && t.rd.AvailableBytes() == 0) {
			t.flush()
			unread = 0
		}
		if err := t.rd.ReadInto(&rec); err != nil {
			if errors.Is(err, ringbuf.ErrClosed) {
				return
			}
			if errors.Is(err, os.ErrDeadlineExceeded) {
				t.bootOffset.Store(bootOffset()) // idle: follow the wall clock
				t.flush()
				unread = 0
				t.rd.SetDeadline(time.Now().Add(pollInterval))
				continue
			}
			t.log.Error("read trace ring buffer", zap.Error(err))
			continue
		}
		t.dispatch(rec.RawSample)
		unread++
	}
}

// flush hands over the queues of the sessions that received events; a
// session whose consumer is behind stays in the list, for the next flush.
// drain dispatches the records left in the ring (the reader never
// blocks: its deadline is in the past) and delivers them.
func (t *Tracer) drain(rec *ringbuf.Record) {
	for t.rd.ReadInto(rec) == nil {
		t.dispatch(rec.RawSample)
	}
	t.flush()
}

func (t *Tracer) flush() {
	keep := t.dirty[:0]
	for _, s := range t.dirty {
		if s.flush() {
			keep = append(keep, s)
		} else {
			s.flushing = false
		}
	}
	clear(t.dirty[len(keep):])
	t.dirty = keep
}

func (t *Tracer) dispatch(raw []byte) {
	hdr, err := peekRecord(raw)
	if err != nil {
		t.badRecord(nil, err)
		return
	}
	t.mu.Lock()
	s := t.sessions[hdr.session]
	t.mu.Unlock()
	if s == nil {
		t.unclaimed.Add(1)
		return
	}
	if hdr.op == opSync {
		s.marker(hdr.seq)
		return
	}
	ev, err := decodeEvent(raw, t.bootOffset.Load(), t.names)
	if err != nil {
		t.badRecord(s, err)
		return
	}
	if ev.Incomplete {
		t.log.Warn("traced path incomplete (too long or unreadable)",
			zap.String("op", string(ev.Op)), zap.String("path", ev.Path), zap.Int("pid", ev.PID))
	}
	if s.push(ev, hdr.preTrack) && !s.flushing {
		s.flushing = true
		t.dirty = append(t.dirty, s)
	}
}

// badRecord counts an undecodable record against its session, or against
// every open session when the record does not say whose it is.
func (t *Tracer) badRecord(s *Session, err error) {
	t.badRecs.Add(1)
	t.log.Error("undecodable trace record", zap.Error(err))
	if s != nil {
		s.badRecord()
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, s := range t.sessions {
		s.badRecord()
	}
}

// Stats are tracer-wide counters, for diagnostics and metrics.
type Stats struct {
	// RingFull and ProcsFull count records the kernel dropped, by cause
	// (ring buffer full, membership map full), over all sessions.
	RingFull, ProcsFull uint64
	// Undecodable counts records user space could not decode.
	Undecodable uint64
	// Unclaimed counts records of sessions that were already closed.
	Unclaimed uint64
	// Missed counts program runs the kernel skipped because another BPF
	// program was running on the CPU (recursion protection).
	Missed uint64
}

// Stats reads the tracer-wide counters.
func (t *Tracer) Stats() (Stats, error) {
	st := Stats{Undecodable: t.badRecs.Load(), Unclaimed: t.unclaimed.Load()}
	st.Missed = t.missed()
	for i, dst := range []*uint64{&st.RingFull, &st.ProcsFull} {
		var per []uint64
		if err := t.objs.AbCounters.Lookup(uint32(i), &per); err != nil {
			return st, err
		}
		for _, v := range per {
			*dst += v
		}
	}
	return st, nil
}

func ebpfPossibleCPUs() int {
	n, err := ebpf.PossibleCPU()
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// ProgramRunTime is the total time the kernel ran the tracer's event
// programs, on every CPU. The kernel counts it only while run-time
// statistics are enabled (ebpf.EnableStats(BPF_STATS_RUN_TIME) or
// sysctl kernel.bpf_stats_enabled=1); otherwise it stays 0.
func (t *Tracer) ProgramRunTime() (time.Duration, error) {
	var d time.Duration
	for _, p := range t.objs.programs() {
		st, err := p.Stats()
		if err != nil {
			return 0, fmt.Errorf("read program statistics: %w", err)
		}
		d += st.Runtime
	}
	return d, nil
}

// missed sums the recursion misses of the programs that record events.
func (t *Tracer) missed() uint64 {
	var n uint64
	for _, p := range t.objs.programs() {
		if st, err := p.Stats(); err == nil {
			n += st.RecursionMisses
		}
	}
	return n
}
