package audit

import (
	"reflect"
	"syscall"
	"testing"

	"github.com/authbench/authbench/tracer/trace"
)

// TestCapabilityDenials: only an EPERM of the capability family is a
// capability denial, listed once per operation, system call and path with
// its count,
// in order of first occurrence; EACCES (Landlock), other errors,
// successes and other operations are not.
func TestCapabilityDenials(t *testing.T) {
	eperm, eacces := -int64(syscall.EPERM), -int64(syscall.EACCES)
	events := []trace.Event{
		{Op: "chown", Path: "/app/ok", Ret: 0},
		{Op: "chown", Syscall: "fchownat", Path: "/app/shared", Ret: eperm, Errno: "EPERM"},
		{Op: "open", Path: "/etc/shadow", Axis: "read", Ret: eperm, Errno: "EPERM"},
		{Op: "mknod", Path: "/app/disk", Ret: eacces, Errno: "EACCES"},
		{Op: "setxattr", Syscall: "setxattr", Path: "/app/shared", Ret: eperm, Errno: "EPERM"},
		{Op: "chown", Syscall: "fchownat", Path: "/app/shared", Ret: eperm, Errno: "EPERM"},
		{Op: "chown", Syscall: "lchown", Path: "/app/shared", Ret: eperm, Errno: "EPERM"},
		{Op: "chmod", Path: "/app/missing", Ret: -int64(syscall.ENOENT), Errno: "ENOENT"},
		{Op: "setid", Syscall: "setresuid", Path: "", Ret: eperm, Errno: "EPERM"},
		{Op: "exit", Ret: -1},
	}
	var c CapabilityDenials
	for i := range events {
		c.Observe(&events[i])
	}
	want := []Denial{
		{Op: "chown", Syscall: "fchownat", Path: "/app/shared", Errno: "EPERM", Count: 2},
		{Op: "setxattr", Syscall: "setxattr", Path: "/app/shared", Errno: "EPERM", Count: 1},
		{Op: "chown", Syscall: "lchown", Path: "/app/shared", Errno: "EPERM", Count: 1},
		{Op: "setid", Syscall: "setresuid", Errno: "EPERM", Count: 1},
	}
	if got := c.Denials(); !reflect.DeepEqual(got, want) {
		t.Errorf("capability denials %+v, want %+v", got, want)
	}
	for _, d := range want {
		if !IsCapabilityDenial(d) {
			t.Errorf("IsCapabilityDenial(%+v) = false", d)
		}
	}
	for _, d := range []Denial{{Op: "open", Axis: "read", Path: "/x", Errno: "EPERM"}, {Op: "mknod", Path: "/x", Errno: "EACCES"}} {
		if IsCapabilityDenial(d) {
			t.Errorf("IsCapabilityDenial(%+v) = true", d)
		}
	}
}
