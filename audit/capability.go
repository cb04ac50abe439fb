package audit

import (
	"syscall"

	"github.com/authbench/authbench/tracer"
)

// capabilityOps are the operations of the capability family (the tracer's
// chown, chmod, setxattr, mknod and setid events): calls that need a
// capability (CHOWN, FOWNER, FSETID, MKNOD, SETUID, SETGID, SETFCAP) when
// they touch what the caller does not own.
var capabilityOps = map[tracer.Op]bool{"chown": true, "chmod": true, "setxattr": true, "mknod": true, "setid": true}

// CapabilityDenial reports whether ev is a capability denial: an
// operation of the capability family that failed with EPERM. Landlock
// refuses with EACCES and does not govern these calls (mknod aside, which
// it refuses with EACCES), so the EPERM is the kernel's capability check
// (or the sandbox's seccomp set-ID rule, also the sandbox's choice).
// Pure.
func CapabilityDenial(ev *tracer.Event) bool {
	return capabilityOps[ev.Op] && ev.Failed() && ev.Ret == -int64(syscall.EPERM)
}

// IsCapabilityDenial reports whether d, a run's denial, is a capability
// denial (CapabilityDenial).
func IsCapabilityDenial(d Denial) bool {
	return capabilityOps[tracer.Op(d.Op)] && d.Errno == "EPERM"
}

// CapabilityDenials collects a run's capability denials, distinct by
// operation, system call and path, in order of first occurrence, at most
// MaxDenials of them. It is not safe for concurrent use.
type CapabilityDenials struct {
	index   map[capKey]int
	list    []Denial
	dropped int
}

type capKey struct{ op, syscall, path string }

// Observe notes ev when it is a capability denial.
func (c *CapabilityDenials) Observe(ev *tracer.Event) {
	if !CapabilityDenial(ev) {
		return
	}
	k := capKey{string(ev.Op), eventSyscall(ev), ev.Path}
	if i, ok := c.index[k]; ok {
		c.list[i].Count++
		return
	}
	if len(c.list) >= MaxDenials {
		c.dropped++
		return
	}
	if c.index == nil {
		c.index = map[capKey]int{}
	}
	c.index[k] = len(c.list)
	c.list = append(c.list, Denial{Op: k.op, Syscall: k.syscall, Path: ev.Path, Errno: "EPERM", Count: 1})
}

// Denials returns the capability denials in order of first occurrence.
func (c *CapabilityDenials) Denials() []Denial { return append([]Denial(nil), c.list...) }

// Dropped is how many further distinct ones did not fit MaxDenials.
func (c *CapabilityDenials) Dropped() int { return c.dropped }

// eventSyscall is the system call an event names ("" until the tracer
// records it).
func eventSyscall(ev *tracer.Event) string { return "" }
