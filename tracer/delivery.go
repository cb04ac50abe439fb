package tracer

import "github.com/authbench/authbench/tracer/trace"

// Delivery of a session's events, in batches: the reader appends every
// record it reads to its session's queue and now and then (see flushMin)
// hands the queue to the consumer as one batch on the Events channel, if
// the channel has room; it never blocks on a consumer (a full channel
// leaves the queue for the next flush). A consumer thus wakes once per
// batch, not once per event, and no goroutine stands between the reader
// and the consumer: on a machine with few cores every wake-up of another
// goroutine costs more CPU than decoding a batch of events.

// push queues an event (called by the reader); preTrack marks an exec
// begun before its process was tracked. flush hands it over.
func (s *Session) push(ev trace.Event, preTrack bool) (queued bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		s.t.unclaimed.Add(1)
		return false
	}
	if s.preExec && ev.TGID == s.root {
		if ev.Op != trace.OpExec || preTrack {
			if preTrack {
				s.preTracks++
			}
			return false
		}
		s.preExec = ev.Failed()
	}
	if len(s.queue) >= s.t.maxQueued {
		s.overflow++ // the consumer does not keep up: bounded memory
		return false
	}
	if s.queue == nil {
		select {
		case b := <-s.free:
			s.queue = b
		default:
			// Growing a batch by doubling costs a third of the reader's
			// time per event; the last batch's size is a good guess,
			// and a wrong one lasts a single batch.
			s.queue = make([]trace.Event, 0, s.lastBatch)
		}
	}
	s.queue = append(s.queue, ev)
	s.events++
	return true
}

// flush hands the events queued so far to the consumer unless its
// channel is full (called by the reader); it reports whether events are
// still queued, to be handed over at a later flush.
func (s *Session) flush() (pending bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended || len(s.queue) == 0 {
		return false
	}
	select {
	case s.out <- s.queue:
		s.lastBatch = len(s.queue)
		s.queue = nil
		return false
	default: // the consumer is behind
		return true
	}
}

// maxRecycled bounds the capacity of a batch kept for reuse (a batch
// that grew while a consumer lagged is left to the garbage collector).
const maxRecycled = 2 * flushMax

// Recycle gives a batch received from Events back to the session, whose
// reader then fills it again rather than allocate a new one: a batch is
// large, and allocating, zeroing and returning its memory to the system
// costs the reader more than decoding the events in it. The caller must
// not use the batch, or pointers to its events, afterwards. Optional: a
// batch that is not recycled is garbage collected.
func (s *Session) Recycle(batch []trace.Event) {
	if cap(batch) == 0 || cap(batch) > maxRecycled {
		return
	}
	select {
	case s.free <- batch[:0]:
	default:
	}
}

// marker is called by the reader when a drain marker arrives.
func (s *Session) marker(seq uint64) {
	s.mu.Lock()
	if s.syncSeq == seq && s.syncDone != nil {
		close(s.syncDone)
		s.syncDone = nil
	}
	s.mu.Unlock()
}

func (s *Session) badRecord() {
	s.mu.Lock()
	s.badRecs++
	s.mu.Unlock()
}

// finish ends the queue: no more events are queued or handed over by
// the reader; a goroutine sends what is left and closes Events, then
// delivered. Later calls do nothing.
func (s *Session) finish() {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	s.ended = true
	rest := s.queue
	s.queue = nil
	s.mu.Unlock()
	go func() {
		defer close(s.delivered)
		defer close(s.out)
		if len(rest) > 0 {
			s.out <- rest
		}
	}()
}
