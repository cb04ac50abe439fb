package tracer

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/ringbuf"
	"go.uber.org/zap"
	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/bpf"
)

// Defaults of Options.
const (
	DefaultRingBytes = 32 << 20
	DefaultMaxProcs  = 65536
	DefaultMaxQueued = 1 << 18
)

// MinKernel is the oldest Linux the tracer is written for: its io_uring
// program needs the io_uring_submit_req tracepoint and the per-opcode
// request structs (io_open, io_rename, io_link, ...) of the io_uring/
// split, both in 6.0; 6.1 is the LTS release that has them. Loading is
// tested (the verifier) on the kernel the tests run on.
const MinKernel = "6.1"

// Options size the kernel side of a Tracer.
type Options struct {
	// RingBytes is the size of the ring buffer shared by all sessions,
	// rounded up to a power of two of at least one page. 0 means
	// DefaultRingBytes.
	RingBytes int
	// MaxProcs bounds the processes traced at once over all sessions.
	// 0 means DefaultMaxProcs.
	MaxProcs int
	// MaxQueued bounds the events a session holds for a consumer that
	// does not keep up (its queue; a few delivered batches may wait in
	// the Events channel besides); further events are counted in
	// Summary.Lost. 0 means DefaultMaxQueued.
	MaxQueued int
	// IdleDetach is how long the programs stay attached after the last
	// session closed, so that back-to-back sessions do not wait for the
	// kernel to finish a detach. 0 means DefaultIdleDetach; negative
	// detaches at once.
	IdleDetach time.Duration
}

// Tracer owns the loaded eBPF programs, their links (present while a
// session is open) and the ring-buffer reader that demultiplexes events
// to sessions. It is safe for concurrent use; Close releases everything.
type Tracer struct {
	log    *zap.Logger
	objs   objects
	rd     *ringbuf.Reader
	waiter *ringWaiter // nil: the reader waits in rd (readLoopBlocking)
	// bootOffset turns the kernel's monotonic event times into Unix time;
	// the reader recomputes it whenever the ring is empty, so that event
	// times follow the wall clock when it is slewed (NTP) or stepped: a
	// tool call's window, stamped with the wall clock, is matched against
	// them (a fixed offset drifted by milliseconds over a long test run).
	bootOffset atomic.Int64
	ringBytes  int
	maxQueued  int

	attachMu   sync.Mutex
	links      []link.Link // nil while detached
	holders    int         // open sessions, which need the programs attached
	idleDetach time.Duration
	idleTimer  *time.Timer // pending detach after the last session

	mu       sync.Mutex
	sessions map[uint64]*Session
	closed   bool

	nextID    atomic.Uint64
	syncSeq   atomic.Uint64
	unclaimed atomic.Uint64
	// stopping tells readLoop that its waiter was closed to stop it: it
	// drains the ring and returns before the ring is unmapped.
	stopping  atomic.Bool
	badRecs   atomic.Uint64
	readerEnd chan struct{}
	dirty     []*Session // sessions with undelivered events (reader goroutine only)
	names     nameCache  // reader goroutine only
}

// Load loads the tracer programs (they are attached while sessions are
// open) and starts the ring-buffer reader. It needs CAP_BPF and
// CAP_PERFMON (or CAP_SYS_ADMIN); when the kernel refuses, the error says
// so and matches os.ErrPermission.
//
// The memlock limit is lifted first, for kernels older than 5.11 that
// charge BPF maps to it (newer ones charge the memory cgroup). This is
// what cilium/ebpf's rlimit.RemoveMemlock does, without that package:
// its initialisation probes the kernel with a BPF syscall in every
// process that links it, each `authbench --version` included.
func Load(opts Options, log *zap.Logger) (*Tracer, error) {
	if log == nil {
		log = zap.NewNop()
	}
	ring, err := ringSize(opts.RingBytes)
	if err != nil {
		return nil, err
	}
	maxProcs := opts.MaxProcs
	if maxProcs <= 0 {
		maxProcs = DefaultMaxProcs
	}
	if err := removeMemlock(); err != nil {
		log.Debug("raise RLIMIT_MEMLOCK", zap.Error(err))
	}
	spec, err := bpf.LoadTracer()
	if err != nil {
		return nil, fmt.Errorf("load tracer: read embedded eBPF object: %w", err)
	}
	spec.Maps[bpf.TracerMapAbEvents].MaxEntries = uint32(ring)
	spec.Maps[bpf.TracerMapAbProcs].MaxEntries = uint32(maxProcs)
	if err := spec.Variables[bpf.TracerVarAbWakeBytes].Set(uint64(wakeBytes(ring))); err != nil {
		return nil, fmt.Errorf("load tracer: set wake-up threshold: %w", err)
	}
	// Scripts' files and the exec-start marks need sched_prepare_exec;
	// ____fput identifies the script's release among the task's work.
	prepare := hasPrepareTracepoint()
	if prepare {
		if err := spec.Variables[bpf.TracerVarAbHavePrepare].Set(uint8(1)); err != nil {
			return nil, fmt.Errorf("load tracer: %w", err)
		}
		if err := spec.Variables[bpf.TracerVarAbFputFn].Set(kernelSymbol("____fput")); err != nil {
			return nil, fmt.Errorf("load tracer: %w", err)
		}
	} else {
		log.Warn("kernel without the sched_prepare_exec tracepoint (Linux < 6.10): exec events of #! scripts name no real file, and a launcher's own exec raced by its tracking is not told apart")
	}

	maxQueued := opts.MaxQueued
	if maxQueued <= 0 {
		maxQueued = DefaultMaxQueued
	}
	t := &Tracer{log: log, ringBytes: ring, maxQueued: maxQueued, sessions: map[uint64]*Session{}, readerEnd: make(chan struct{}), names: nameCache{}}
	switch t.idleDetach = opts.IdleDetach; {
	case t.idleDetach == 0:
		t.idleDetach = DefaultIdleDetach
	case t.idleDetach < 0:
		t.idleDetach = 0
	}
	if err := spec.LoadAndAssign(&t.objs, nil); err != nil {
		return nil, loadError(err)
	}
	if prepare {
		if err := t.objs.loadPrepare(spec); err != nil {
			t.objs.Close()
			return nil, loadError(err)
		}
	}
	t.rd, err = ringbuf.NewReader(t.objs.AbEvents)
	if err != nil {
		t.objs.Close()
		return nil, fmt.Errorf("load tracer: open ring buffer reader: %w", err)
	}
	if t.waiter, err = newRingWaiter(t.objs.AbEvents); err != nil {
		log.Debug("ring buffer reader waits in epoll_wait", zap.Error(err))
		t.waiter = nil
	}
	t.bootOffset.Store(bootOffset())
	go t.readLoop()
	log.Debug("tracer loaded", zap.Int("ring_bytes", ring), zap.Int("max_procs", maxProcs))
	return t, nil
}

// RingBytes is the size of the ring buffer in use.
func (t *Tracer) RingBytes() int { return t.ringBytes }

// Close detaches the programs, stops the reader, closes every session
// still open (their channels end; their events up to now are delivered)
// and frees all kernel objects.
func (t *Tracer) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	t.mu.Unlock()

	var errs []error
	t.attachMu.Lock()
	t.stopIdleTimer()
	errs = append(errs, t.detach())
	t.holders = 0
	t.attachMu.Unlock()
	if t.waiter != nil {
		// The waiting reader reads the ring's mapping (AvailableBytes)
		// outside the ring reader's lock: it must have returned before
		// Close unmaps the ring.
		t.stopping.Store(true)
		t.waiter.Close() // ends a wait; readLoop drains the ring and returns
		<-t.readerEnd
		errs = append(errs, t.rd.Close())
	} else {
		errs = append(errs, t.rd.Close()) // ends a blocked read
		<-t.readerEnd
	}
	t.mu.Lock()
	for id, s := range t.sessions {
		s.finish()
		delete(t.sessions, id)
	}
	t.mu.Unlock()
	errs = append(errs, t.objs.Close())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close tracer: %w", err)
	}
	return nil
}

// wakeBytes is how much unread data makes the kernel wake the reader: an
// eighth of the ring, at most 256 KiB. Below that the reader polls every
// pollInterval.
func wakeBytes(ring int) int {
	return min(ring/8, 256<<10)
}

// ringSize rounds n up to a power of two of at least one page.
func ringSize(n int) (int, error) {
	if n == 0 {
		return DefaultRingBytes, nil
	}
	if n < 0 || n > 1<<30 {
		return 0, fmt.Errorf("ring buffer size %d: want 1 page to 1 GiB", n)
	}
	size := os.Getpagesize()
	for size < n {
		size <<= 1
	}
	return size, nil
}

// bootOffset is what to add to CLOCK_MONOTONIC (bpf_ktime_get_ns) to get
// Unix time.
func bootOffset() int64 {
	var ts unix.Timespec
	before := time.Now().UnixNano()
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return 0
	}
	return before - ts.Nano()
}

// loadError explains why the kernel refused the programs.
func loadError(err error) error {
	var ve *ebpf.VerifierError
	if errors.As(err, &ve) {
		return fmt.Errorf("load tracer: the kernel verifier rejected a program: %w", err)
	}
	return fmt.Errorf("load tracer: %w", permHint(err))
}

func permHint(err error) error {
	if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) {
		return fmt.Errorf("%w (tracing needs CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN: run as root)", err)
	}
	if errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("%w (needs BTF tracepoints, ring buffers, bpf_loop, BPF_PROG_TYPE_SYSCALL, the io_uring_submit_req tracepoint and kernel BTF for CO-RE: Linux >= %s with CONFIG_DEBUG_INFO_BTF and CONFIG_IO_URING)", err, MinKernel)
	}
	return err
}

// removeMemlock lifts RLIMIT_MEMLOCK (see Load) when this kernel charges
// BPF memory to it.
func removeMemlock() error {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return fmt.Errorf("uname: %w", err)
	}
	if !memlockCharged(unix.ByteSliceToString(u.Release[:])) {
		return nil
	}
	inf := unix.Rlimit{Cur: unix.RLIM_INFINITY, Max: unix.RLIM_INFINITY}
	if err := unix.Setrlimit(unix.RLIMIT_MEMLOCK, &inf); err != nil {
		return fmt.Errorf("set RLIMIT_MEMLOCK: %w", err)
	}
	return nil
}

// memlockCharged reports whether a kernel of this release charges BPF
// maps and programs to RLIMIT_MEMLOCK: those before 5.11, which moved
// the accounting to the memory cgroup. A release it cannot read is
// assumed old.
func memlockCharged(release string) bool {
	var major, minor int
	if n, _ := fmt.Sscanf(release, "%d.%d", &major, &minor); n < 2 {
		return true
	}
	return major < 5 || major == 5 && minor < 11
}
