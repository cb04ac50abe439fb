package audit

import (
	"syscall"

	"github.com/authbench/authbench/tracer/trace"
)

// CapabilityDenial reports whether ev is a capability denial: an
// operation of the capability family (trace.CapabilityOp: chown, chmod,
// setxattr, mknod, setid) that failed with EPERM. Landlock
// refuses with EACCES and does not govern these calls (mknod aside, which
// it refuses with EACCES), so the EPERM is the kernel's capability check
// (or the sandbox's seccomp set-ID rule, also the sandbox's choice).
// Pure.
func CapabilityDenial(ev *trace.Event) bool {
	return trace.CapabilityOp(ev.Op) && ev.Failed() && ev.Ret == -int64(syscall.EPERM)
}

// IsCapabilityDenial reports whether d, a run's denial, is a capability
// denial (CapabilityDenial).
func IsCapabilityDenial(d Denial) bool {
	return trace.CapabilityOp(trace.Op(d.Op)) && d.Errno == "EPERM"
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
func (c *CapabilityDenials) Observe(ev *trace.Event) {
	if !CapabilityDenial(ev) {
		return
	}
	k := capKey{string(ev.Op), ev.Syscall, ev.Path}
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
