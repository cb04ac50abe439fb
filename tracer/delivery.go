package tracer

// Delivery of a session's events, in batches: the reader appends every
// record it reads to its session's queue (it never blocks on a consumer)
// and now and then (see flushMin) hands the queues over to the sessions'
// pump goroutines, each of which sends its queue on the Events channel as
// one batch. A consumer thus wakes once per batch, not once per event (a
// wake-up costs more than decoding an event).

// push queues an event (called by the reader); flush makes it deliverable.
func (s *Session) push(ev Event) (queued bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		s.t.unclaimed.Add(1)
		return false
	}
	if s.preExec && ev.TGID == s.root {
		if ev.Op != OpExec {
			return false
		}
		s.preExec = ev.Failed()
	}
	if len(s.queue) >= s.t.maxQueued {
		s.overflow++ // the consumer does not keep up: bounded memory
		return false
	}
	if s.queue == nil {
		// Growing a batch by doubling costs a third of the reader's time
		// per event; the last batch's size is a good guess, and a wrong
		// one lasts a single batch.
		s.queue = make([]Event, 0, s.lastBatch)
	}
	s.queue = append(s.queue, ev)
	s.events++
	return true
}

// flush wakes the pump for the events queued so far.
func (s *Session) flush() {
	select {
	case s.wake <- struct{}{}:
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

// finish ends the queue; the pump closes Events once it is empty.
func (s *Session) finish() {
	s.mu.Lock()
	s.ended = true
	s.mu.Unlock()
	s.flush()
}

// pump sends the queue, a batch at a time, until the session has ended
// and everything has been sent.
func (s *Session) pump() {
	defer close(s.pumpDone)
	defer close(s.out)
	for {
		s.mu.Lock()
		batch := s.queue
		s.queue = nil
		if len(batch) > 0 {
			s.lastBatch = len(batch)
		}
		ended := s.ended
		s.mu.Unlock()
		if len(batch) > 0 {
			s.out <- batch
			continue
		}
		if ended {
			return
		}
		<-s.wake
	}
}
