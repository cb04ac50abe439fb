package tracer

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cilium/ebpf"
	"go.uber.org/zap"

	"github.com/authbench/authbench/bpf"
	"github.com/authbench/authbench/tracer/trace"
)

// ErrProcessGone is returned by Track when the process has already
// exited (or is a zombie) and so cannot be traced.
var ErrProcessGone = errors.New("process has already exited")

// outBatches is how many delivered batches may wait in a session's Events
// channel.
const outBatches = 4

// drainTimeout bounds how long Close waits for its drain marker.
const drainTimeout = 30 * time.Second

// Session is the trace of one process tree. Its events arrive in kernel
// commit order on Events; the channel is closed by Close (or Tracer.Close)
// after the last event.
type Session struct {
	t    *Tracer
	id   uint64
	root int

	missed0   uint64 // Tracer.missed when the session started
	mu        sync.Mutex
	preExec   bool // dropping the root's events until it execs (FromExec)
	preTracks int  // execs of the root begun before tracking, dropped (FromExec)
	queue     []trace.Event
	flushing  bool // in Tracer.dirty (reader goroutine only)
	lastBatch int  // size of the last batch sent: the next queue's capacity
	ended     bool // no more events will be queued or handed over by the reader
	events    uint64
	badRecs   uint64
	overflow  uint64 // events dropped because the queue was full
	syncSeq   uint64
	syncDone  chan struct{}

	out       chan []trace.Event
	delivered chan struct{}      // closed with out, once the last batch was taken
	free      chan []trace.Event // recycled batches (Recycle), reused by push
	closeMu   sync.Mutex
	summary   *trace.Summary
}

// TrackOptions adjust what a session records.
type TrackOptions struct {
	// FromExec drops the root process's events until its first
	// successful exec that began after the tracking did (failed exec
	// attempts are kept). Use it when the root is a launcher such as
	// sandbox-init, whose own start-up accesses are not the traced
	// command's. The launcher's own exec, when its tracking came while
	// that exec was still under way (after /proc/PID/exe changed, before
	// the exec's tracepoint), does not count: the kernel marks an exec
	// whose start it did not see in the tracked process.
	FromExec bool
}

// Track makes the process pid (a thread-group id) the root of a new
// session: from now on it and every descendant forked later are traced.
// Track the process before it starts the work to trace, e.g. while a
// sandbox-init child waits at its gate.
func (t *Tracer) Track(pid int) (*Session, error) {
	return t.TrackWith(pid, TrackOptions{})
}

// TrackExec tracks pid's tree from its next exec (TrackOptions.FromExec)
// as a trace.Session: the daemon's tracer of a command run.
func (t *Tracer) TrackExec(pid int) (trace.Session, error) {
	s, err := t.TrackWith(pid, TrackOptions{FromExec: true})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// TrackWith is Track with options.
func (t *Tracer) TrackWith(pid int, opts TrackOptions) (*Session, error) {
	if pid <= 0 {
		return nil, fmt.Errorf("track process %d: invalid pid", pid)
	}
	if err := checkAlive(pid); err != nil {
		return nil, fmt.Errorf("track process %d: %w", pid, err)
	}
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil, fmt.Errorf("track process %d: tracer is closed", pid)
	}
	s := &Session{
		t: t, id: t.nextID.Add(1), root: pid, preExec: opts.FromExec,
		out: make(chan []trace.Event, outBatches), delivered: make(chan struct{}), free: make(chan []trace.Event, outBatches+1),
		missed0: t.missed(),
	}
	t.sessions[s.id] = s
	t.mu.Unlock()

	if err := t.acquire(); err != nil {
		t.dropSession(s.id)
		return nil, fmt.Errorf("track process %d: %w", pid, err)
	}
	if err := t.addSession(s.id, pid); err != nil {
		t.release()
		t.dropSession(s.id)
		return nil, fmt.Errorf("track process %d: %w", pid, err)
	}
	// The process may have exited between the check and the insertion;
	// its exit then could not remove the entry.
	if err := checkAlive(pid); err != nil {
		t.removeSessionKernel(s.id)
		t.objs.AbLost.Delete(s.id)
		t.release()
		t.dropSession(s.id)
		return nil, fmt.Errorf("track process %d: %w", pid, err)
	}
	t.log.Debug("tracking", zap.Int("pid", pid), zap.Uint64("session", s.id))
	return s, nil
}

func (t *Tracer) addSession(id uint64, pid int) error {
	zeros := make([]uint64, ebpfPossibleCPUs())
	if err := t.objs.AbLost.Update(id, zeros, ebpf.UpdateNoExist); err != nil {
		return fmt.Errorf("register session: %w", err)
	}
	if err := t.objs.AbSessions.Update(id, uint32(1), ebpf.UpdateNoExist); err != nil {
		t.objs.AbLost.Delete(id)
		return fmt.Errorf("register session: %w", err)
	}
	if err := t.objs.AbProcs.Update(uint32(pid), id, ebpf.UpdateNoExist); err != nil {
		t.objs.AbSessions.Delete(id)
		t.objs.AbLost.Delete(id)
		if errors.Is(err, ebpf.ErrKeyExist) {
			return errors.New("already traced by another session")
		}
		return fmt.Errorf("add to traced processes: %w", err)
	}
	return nil
}

func (t *Tracer) dropSession(id uint64) {
	t.mu.Lock()
	delete(t.sessions, id)
	t.mu.Unlock()
}

// removeSessionKernel stops the session from growing and removes its
// processes from the membership map; it returns how many there were.
func (t *Tracer) removeSessionKernel(id uint64) int {
	t.objs.AbSessions.Delete(id)
	var (
		key     uint32
		val     uint64
		victims []uint32
	)
	it := t.objs.AbProcs.Iterate()
	for it.Next(&key, &val) {
		if val == id {
			victims = append(victims, key)
		}
	}
	if err := it.Err(); err != nil {
		t.log.Warn("iterate traced processes", zap.Error(err))
	}
	n := 0
	for _, k := range victims {
		if t.objs.AbProcs.Delete(k) == nil {
			n++
		}
	}
	return n
}

// ID is the session's identifier, carried by each of its kernel records.
func (s *Session) ID() uint64 { return s.id }

// Root is the pid of the process the session was started for.
func (s *Session) Root() int { return s.root }

// Events delivers the session's events in batches, in kernel commit
// order; each batch belongs to the receiver, which may give it back with
// Recycle once done with it. Read it until it is closed:
// the reader never blocks on a slow consumer; events queue in memory up
// to Options.MaxQueued, and those beyond are counted in Summary.Lost.
func (s *Session) Events() <-chan []trace.Event { return s.out }

// Close stops tracing the tree, waits until every event the kernel
// committed for it before the call has been read, delivers them, closes
// Events and returns the Summary. Call it after the root process exited
// (e.g. after waiting for it) to lose nothing; processes of the tree still
// running are counted in Summary.Running and no longer traced. Close
// returns once every event has been handed to the Events channel, so keep
// reading it (in another goroutine) until it is closed. Close may be
// called more than once; later calls return the same Summary.
func (s *Session) Close() (trace.Summary, error) {
	s.closeMu.Lock()
	defer s.closeMu.Unlock()
	if s.summary != nil {
		return *s.summary, nil
	}
	t := s.t
	t.mu.Lock()
	closed := t.closed
	t.mu.Unlock()
	if closed {
		<-s.delivered
		s.mu.Lock()
		sum := trace.Summary{Events: s.events, Lost: s.badRecs + s.overflow}
		s.mu.Unlock()
		s.summary = &sum
		return sum, fmt.Errorf("close trace session %d: the tracer was closed first; lost events are unknown", s.id)
	}
	running := t.removeSessionKernel(s.id)
	drainErr := s.drain()
	running += t.removeSessionKernel(s.id) // forks that raced the first pass
	t.release()
	lost, lostErr := t.sessionLost(s.id)
	// Skipped program runs cannot be attributed to a session: count them
	// against every session open meanwhile rather than lose them silently.
	if m := t.missed(); m > s.missed0 {
		t.log.Warn("kernel skipped tracer program runs (recursion)", zap.Uint64("runs", m-s.missed0))
		lost += m - s.missed0
	}
	t.objs.AbLost.Delete(s.id)
	t.dropSession(s.id)
	s.finish()
	<-s.delivered

	s.mu.Lock()
	sum := trace.Summary{Events: s.events, Lost: lost + s.badRecs + s.overflow, Running: running}
	s.mu.Unlock()
	s.summary = &sum
	if err := errors.Join(drainErr, lostErr); err != nil {
		return sum, fmt.Errorf("close trace session %d: %w", s.id, err)
	}
	return sum, nil
}

// drain writes a marker into the ring buffer and waits until the reader
// has passed it: every earlier record of the session has then been read.
func (s *Session) drain() error {
	t := s.t
	seq := t.syncSeq.Add(1)
	done := make(chan struct{})
	s.mu.Lock()
	s.syncSeq, s.syncDone = seq, done
	s.mu.Unlock()
	args := bpf.TracerAbSyncArgs{Session: s.id, Seq: seq}
	deadline := time.Now().Add(drainTimeout)
	for {
		ret, err := t.objs.AbSync.Run(&ebpf.RunOptions{Context: args})
		if err != nil {
			return fmt.Errorf("write drain marker: %w", err)
		}
		if ret == 0 {
			break
		}
		// The ring is full: the reader is emptying it.
		if time.Now().After(deadline) {
			return fmt.Errorf("write drain marker: ring buffer still full after %v", drainTimeout)
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case <-done:
		return nil
	case <-t.readerEnd:
		return errors.New("drain: tracer closed")
	case <-time.After(drainTimeout):
		return fmt.Errorf("drain: marker not read within %v", drainTimeout)
	}
}

func (t *Tracer) sessionLost(id uint64) (uint64, error) {
	var per []uint64
	if err := t.objs.AbLost.Lookup(id, &per); err != nil {
		return 0, fmt.Errorf("read lost-event counter: %w", err)
	}
	var n uint64
	for _, v := range per {
		n += v
	}
	return n, nil
}

// checkAlive reports whether pid is a live process (not a thread, not a zombie).
func checkAlive(pid int) error {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		if os.IsNotExist(err) {
			return ErrProcessGone
		}
		return fmt.Errorf("read process state: %w", err)
	}
	// pid (comm) S ...: the state follows the last ')'.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 || i+2 >= len(b) {
		return fmt.Errorf("parse /proc/%d/stat", pid)
	}
	if st := b[i+2]; st == 'Z' || st == 'X' {
		return ErrProcessGone
	}
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err == nil && !strings.Contains(string(status), "\nTgid:\t"+strconv.Itoa(pid)+"\n") {
		return fmt.Errorf("%d is a thread, not a process", pid)
	}
	return nil
}
