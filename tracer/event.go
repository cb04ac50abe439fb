package tracer

import (
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// Op is the operation of an Event, as written in the JSON "op" field.
type Op string

// Operations. One file-access event is recorded per attempted system call:
// open (open, openat, openat2, creat), exec (execve, execveat), mkdir
// (mkdir, mkdirat), unlink (unlink, unlinkat), rmdir (rmdir, unlinkat with
// AT_REMOVEDIR), rename (rename, renameat, renameat2), link (link, linkat),
// symlink (symlink, symlinkat), truncate (truncate, ftruncate), chdir
// (chdir, fchdir). Fork and exit are process events of the tree.
const (
	OpOpen     Op = "open"
	OpExec     Op = "exec"
	OpMkdir    Op = "mkdir"
	OpUnlink   Op = "unlink"
	OpRmdir    Op = "rmdir"
	OpRename   Op = "rename"
	OpLink     Op = "link"
	OpSymlink  Op = "symlink"
	OpTruncate Op = "truncate"
	OpChdir    Op = "chdir"
	OpFork     Op = "fork"
	OpExit     Op = "exit"
)

// opByCode maps the kernel's enum ab_op (bpf/tracer.h) to Op.
var opByCode = [...]Op{
	1: OpOpen, 2: OpExec, 3: OpMkdir, 4: OpUnlink, 5: OpRmdir, 6: OpRename,
	7: OpLink, 8: OpSymlink, 9: OpTruncate, 10: OpChdir, 11: OpFork, 12: OpExit,
}

// Axis is the permission axis an operation exercises.
type Axis string

// Axes of the permission policy; AxisNone for chdir, fork and exit.
const (
	AxisRead    Axis = "read"
	AxisWrite   Axis = "write"
	AxisExecute Axis = "execute"
	AxisNone    Axis = ""
)

// writeOpenFlags are the open flags that make an open a write.
const writeOpenFlags = unix.O_WRONLY | unix.O_RDWR | unix.O_CREAT | unix.O_TRUNC

// AxisOf returns the axis of op with open flags: exec executes; an open
// with O_WRONLY, O_RDWR, O_CREAT or O_TRUNC writes, any other open reads;
// mkdir, unlink, rmdir, rename, link, symlink and truncate write.
func AxisOf(op Op, flags uint64) Axis {
	switch op {
	case OpExec:
		return AxisExecute
	case OpOpen:
		if flags&writeOpenFlags != 0 {
			return AxisWrite
		}
		return AxisRead
	case OpMkdir, OpUnlink, OpRmdir, OpRename, OpLink, OpSymlink, OpTruncate:
		return AxisWrite
	}
	return AxisNone
}

// Event is one traced operation of a process in a session's tree.
//
// Path is absolute and lexically clean (empty for fork and exit, and when
// the kernel could not read the name). Path2 is the second path of rename
// and link (the new name) and of symlink (its target resolved against the
// link's directory; Path is then the link itself). Flags are the open flags as
// passed (only meaningful, and only encoded, for open; creat is
// O_CREAT|O_WRONLY|O_TRUNC). Ret is 0 on success and -errno on failure
// (Errno names it); for exit it is the exit status as a shell reports it
// (code, or 128+signal). Fork is reported for new processes, not threads:
// PID/TGID are the new process, PPID its parent. PID is the thread id,
// TGID the process id.
type Event struct {
	TS    int64  `json:"ts"` // Unix time, ns
	PID   int    `json:"pid"`
	TGID  int    `json:"tgid"`
	PPID  int    `json:"ppid"`
	Comm  string `json:"comm"`
	Op    Op     `json:"op"`
	Path  string `json:"path"`
	Path2 string `json:"path2,omitempty"`
	Flags uint64 `json:"flags,omitempty"`
	Axis  Axis   `json:"axis"`
	Ret   int64  `json:"ret"`
	Errno string `json:"errno,omitempty"`
	// Incomplete is set when a path was cut short (longer than the
	// kernel-side bounds) or could not be read; it is not encoded.
	Incomplete bool `json:"-"`
}

// Failed reports whether the operation failed (a negative Ret). Exit
// events never fail: their Ret is a non-negative exit status.
func (e *Event) Failed() bool { return e.Op != OpExit && e.Ret < 0 }

// ErrnoName is the symbolic name of errno, e.g. "ENOENT".
func ErrnoName(errno int64) string {
	if name := unix.ErrnoName(syscall.Errno(errno)); name != "" {
		return name
	}
	return fmt.Sprintf("E%d", errno)
}
