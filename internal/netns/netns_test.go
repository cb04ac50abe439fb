package netns

import (
	"fmt"
	"net"
	"os"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/internal/testenv"
)

// TestNew: the namespace is not ours, outlives the thread that made
// it, and its loopback carries a TCP connection.
func TestNew(t *testing.T) {
	testenv.NeedRoot(t)
	ns, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Close()
	var mine, made unix.Stat_t
	if err := unix.Stat("/proc/self/ns/net", &mine); err != nil {
		t.Fatal(err)
	}
	if err := unix.Fstat(int(ns.Fd()), &made); err != nil {
		t.Fatal(err)
	}
	if mine.Ino == made.Ino {
		t.Fatal("New returned the caller's own network namespace")
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread joins the namespace
		if err := unix.Setns(int(ns.Fd()), unix.CLONE_NEWNET); err != nil {
			errc <- err
			return
		}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			errc <- fmt.Errorf("listen on the namespace's loopback: %w", err)
			return
		}
		defer l.Close()
		go func() {
			if c, err := l.Accept(); err == nil {
				c.Close()
			}
		}()
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			errc <- fmt.Errorf("connect on the namespace's loopback: %w", err)
			return
		}
		c.Close()
		ifaces, err := net.Interfaces()
		if err == nil && len(ifaces) != 1 {
			err = fmt.Errorf("interfaces %v, want lo alone", ifaces)
		}
		errc <- err
	}()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/self/fd/%d", ns.Fd())); err != nil {
		t.Fatalf("the namespace's file: %v", err)
	}
}
