// Package netns makes the network namespaces of runs and image builds:
// only a loopback, up, held open by a file.
package netns

import (
	"fmt"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// New makes a network namespace with only its loopback, up, and
// returns it open: containers join it by the path
// /proc/self/fd/N of the returned file (NetNSPath), and it lives while the
// file is open, whichever of them exit first (a compose service that
// completes before the others start).
func New() (*os.File, error) {
	type made struct {
		f   *os.File
		err error
	}
	ch := make(chan made, 1)
	go func() {
		f, err := newNetNSOnThisThread()
		ch <- made{f, err}
	}()
	m := <-ch
	return m.f, m.err
}

// newNetNSOnThisThread makes the namespace on the calling goroutine's
// thread, which then returns to its own namespace (it may be the main
// thread, whose namespace /proc/self shows). If it cannot return, the
// thread stays locked and ends with the goroutine.
func newNetNSOnThisThread() (*os.File, error) {
	runtime.LockOSThread()
	orig, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		runtime.UnlockOSThread()
		return nil, err
	}
	defer orig.Close()
	if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("unshare the network namespace: %w", err)
	}
	f, err := os.Open("/proc/thread-self/ns/net")
	if err == nil {
		if err = loopbackUp(); err != nil {
			f.Close()
			err = fmt.Errorf("loopback up: %w", err)
		}
	}
	if serr := unix.Setns(int(orig.Fd()), unix.CLONE_NEWNET); serr != nil {
		if err == nil {
			f.Close()
		}
		return nil, fmt.Errorf("return to the network namespace: %w", serr)
	}
	runtime.UnlockOSThread()
	if err != nil {
		return nil, err
	}
	return f, nil
}

// loopbackUp sets the calling thread's network namespace's lo up.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}
