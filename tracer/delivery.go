package tracer

// Delivery of a session's events: the reader hands an event straight to
// the Events channel when nothing is pending and the channel has room
// (the common case: one goroutine hand-off per event); otherwise it
// appends to an in-memory queue (it never blocks on a consumer), which one
// pump goroutine per session forwards to the channel in order.

// push queues events for delivery (called by the reader).
func (s *Session) push(ev Event) {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		s.t.unclaimed.Add(1)
		return
	}
	if s.preExec && ev.TGID == s.root {
		if ev.Op != OpExec {
			s.mu.Unlock()
			return
		}
		s.preExec = ev.Failed()
	}
	s.events++
	if !s.pumping && len(s.queue) == 0 {
		select {
		case s.out <- ev:
			s.mu.Unlock()
			return
		default:
		}
	}
	s.queue = append(s.queue, ev)
	s.mu.Unlock()
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
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *Session) pump() {
	defer close(s.pumpDone)
	defer close(s.out)
	var batch []Event
	for {
		s.mu.Lock()
		if len(s.queue) == 0 {
			s.pumping = false
			ended := s.ended
			s.mu.Unlock()
			if ended {
				return
			}
			<-s.wake
			continue
		}
		batch, s.queue = s.queue, batch[:0]
		s.pumping = true
		s.mu.Unlock()
		for _, ev := range batch {
			s.out <- ev
		}
		clear(batch)
	}
}
