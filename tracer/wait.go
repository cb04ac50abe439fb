package tracer

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"
)

// ringWaiter waits for ring-buffer data in the Go runtime's network
// poller, so that the waiting reader is a parked goroutine rather than a
// thread blocked in epoll_wait. A thread blocked in a system call keeps
// the Go scheduler's monitor thread (sysmon) polling every 20 µs to 10 ms
// and makes it hand the thread's processor to another thread every time
// the call lasts more than 10 ms: on the 20k-file read of
// `make bench-trace` that monitor used more CPU in the daemon than
// reading, decoding and recording the events. Parked in the poller, an
// idle reader costs no CPU at all.
type ringWaiter struct {
	f  *os.File
	rc syscall.RawConn
}

// newRingWaiter registers a duplicate of the ring buffer's descriptor
// with the poller.
func newRingWaiter(ring *ebpf.Map) (*ringWaiter, error) {
	fd, err := unix.FcntlInt(uintptr(ring.FD()), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("duplicate ring buffer descriptor: %w", err)
	}
	// Non-blocking (a flag of the open file, which the map's own
	// descriptor shares: bpf() and mmap ignore it) makes os.NewFile
	// register the descriptor with the poller.
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("ring buffer descriptor: %w", err)
	}
	f := os.NewFile(uintptr(fd), "ringbuf")
	if err := f.SetReadDeadline(time.Time{}); err != nil { // os.ErrNoDeadline: not in the poller
		f.Close()
		return nil, fmt.Errorf("ring buffer descriptor not pollable: %w", err)
	}
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, err
	}
	return &ringWaiter{f: f, rc: rc}, nil
}

// wait returns true once ready reports true, checking it whenever the
// kernel wakes the ring buffer's readers, and false after d; it returns
// an error once the waiter is closed.
func (w *ringWaiter) wait(ready func() bool, d time.Duration) (bool, error) {
	if err := w.f.SetReadDeadline(time.Now().Add(d)); err != nil {
		return false, err
	}
	err := w.rc.Read(func(uintptr) bool { return ready() })
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return false, nil
	}
	return err == nil, err
}

// Close ends a wait in progress and every later one.
func (w *ringWaiter) Close() error { return w.f.Close() }
