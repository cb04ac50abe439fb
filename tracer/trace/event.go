package trace

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
// (chdir, fchdir), mmap (mmap, mmap2, mprotect, pkey_mprotect with
// PROT_EXEC of a file-backed mapping) and the capability family: chown
// (chown, fchown, lchown, fchownat), chmod (chmod, fchmod, fchmodat,
// fchmodat2), setxattr (setxattr, lsetxattr, fsetxattr, setxattrat and the
// removexattr twins), mknod (mknod, mknodat) and setid (setuid, setgid,
// setreuid, setregid, setresuid, setresgid, setgroups, setfsuid,
// setfsgid); Event.Syscall names the call of these. Fork and exit are
// process events of the tree.
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
	// OpURingSetup is an io_uring_setup attempt: the process asked for an
	// io_uring, whose file operations are then traced from the kernel's
	// io_uring tracepoint (Event.URing).
	OpURingSetup Op = "io_uring_setup"
	// OpMmap maps a file executable (mmap with PROT_EXEC) or makes a
	// file-backed mapping executable (mprotect with PROT_EXEC): native
	// code that ran without an execve (LD_PRELOAD, dlopen, ld.so).
	OpMmap     Op = "mmap"
	OpChown    Op = "chown"
	OpChmod    Op = "chmod"
	OpSetxattr Op = "setxattr"
	OpMknod    Op = "mknod"
	OpSetid    Op = "setid"
)

// CapabilityOp reports whether op is of the capability family (chown,
// chmod, setxattr, mknod, setid): calls that need a capability (CHOWN,
// FOWNER, FSETID, MKNOD, SETUID, SETGID) when they touch what the caller
// does not own, so that their EPERM is a capability denial.
func CapabilityOp(op Op) bool {
	switch op {
	case OpChown, OpChmod, OpSetxattr, OpMknod, OpSetid:
		return true
	}
	return false
}

// RealState qualifies Event.Real.
type RealState string

// States of a real path. An empty state with a non-empty Real is an
// ordinary file reachable under that path.
const (
	// RealDeleted: the file had been unlinked when the event happened;
	// Real is the last path it had.
	RealDeleted RealState = "deleted"
	// RealUnreachable: the file is not below the process's root: an
	// anonymous file (memfd, pipe, socket, anon inode) or one of another
	// mount namespace. Real is empty; Dev and Ino still identify it.
	RealUnreachable RealState = "unreachable"
	// RealTruncated: the path is longer than the kernel-side bounds
	// (4 KiB of names, 256 components). Real is empty; Dev and Ino still
	// identify the file.
	RealTruncated RealState = "truncated"
)

// Axis is the permission axis an operation exercises.
type Axis string

// Axes of the permission policy; AxisNone for chdir, fork, exit and the
// capability family.
const (
	AxisRead    Axis = "read"
	AxisWrite   Axis = "write"
	AxisExecute Axis = "execute"
	AxisNone    Axis = ""
)

// writeOpenFlags are the open flags that make an open a write.
const writeOpenFlags = unix.O_WRONLY | unix.O_RDWR | unix.O_CREAT | unix.O_TRUNC

// AxisOf returns the axis of op with open flags: exec and mmap execute; an open
// with O_WRONLY, O_RDWR, O_CREAT or O_TRUNC writes, any other open reads;
// mkdir, unlink, rmdir, rename, link, symlink and truncate write.
func AxisOf(op Op, flags uint64) Axis {
	switch op {
	case OpExec, OpMmap:
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
//
// Path and Path2 are the names as the process gave them (made absolute
// against the base directory the kernel used, cleaned lexically: symlinks
// are not followed). When the name has a ".." component, Given is the
// same path before cleaning: a ".." after a symlink leaves the link's
// target, so the clean Path may name another file than the kernel
// resolved (use Real, or resolve Given). For a successful open (open, openat, openat2, creat,
// open_by_handle_at) and exec, Real is the file the kernel actually
// opened or executed, read from the new descriptor (bprm->file for exec)
// and named from the process's root with mounts crossed and symlinks
// resolved, and Dev/Ino are its identity (see RealState for the files
// that have no such path). open_by_handle_at has no Path.
//
// Start is the start time of process TGID (CLOCK_MONOTONIC, ns since
// boot), PStart that of process PPID: (TGID, Start) identifies a process
// across pid reuse (see Proc). For fork, TGID/Start are the new process.
//
// URing marks an operation submitted through io_uring: the event is the
// submission (Ret 0), its result is not traced; Real is empty.
//
// For exec, Real is the file the caller executed (a #! script itself) and
// Interp the real path of the interpreter the kernel ran instead of it
// (binfmt_script, binfmt_misc), empty when the file ran itself. LdEnv holds
// the first LD_PRELOAD=, LD_LIBRARY_PATH= and LD_AUDIT= entries of the new
// program's environment (at most 3, each cut to 255 bytes);
// LdEnvTruncated says one was cut or more were there.
//
// For mmap, Real/Dev/Ino are the file mapped, Path is Real, and Flags the
// protection bits asked for (PROT_EXEC among them). Syscall names the call
// of mmap and capability-family events (e.g. "fchownat", "mprotect").
type Event struct {
	TS        int64     `json:"ts"` // Unix time, ns
	PID       int       `json:"pid"`
	TGID      int       `json:"tgid"`
	PPID      int       `json:"ppid"`
	Start     uint64    `json:"start"`
	PStart    uint64    `json:"pstart"`
	Comm      string    `json:"comm"`
	Op        Op        `json:"op"`
	Path      string    `json:"path"`
	Path2     string    `json:"path2,omitempty"`
	Given     string    `json:"given,omitempty"`
	Real      string    `json:"real,omitempty"`
	RealState RealState `json:"real_state,omitempty"`
	Dev       uint64    `json:"dev,omitempty"`
	Ino       uint64    `json:"ino,omitempty"`
	Interp    string    `json:"interp,omitempty"`
	LdEnv     []string  `json:"ld_env,omitempty"`
	// LdEnvTruncated: an LdEnv entry was cut, more entries were there, or
	// the environment was longer than the kernel-side scan.
	LdEnvTruncated bool   `json:"ld_env_truncated,omitempty"`
	Syscall        string `json:"syscall,omitempty"`
	URing          bool   `json:"io_uring,omitempty"`
	Flags          uint64 `json:"flags,omitempty"`
	Axis           Axis   `json:"axis"`
	Ret            int64  `json:"ret"`
	Errno          string `json:"errno,omitempty"`
	// Incomplete is set when a path was cut short (longer than the
	// kernel-side bounds) or could not be read; it is not encoded.
	Incomplete bool `json:"-"`
}

// ProcID identifies a process across pid reuse: its pid (thread-group
// id) and its start time (CLOCK_MONOTONIC ns since boot). It stays the
// same across exec; a process's execs are told apart by event order.
type ProcID struct {
	PID   int
	Start uint64
}

// String is "pid@start".
func (p ProcID) String() string { return fmt.Sprintf("%d@%d", p.PID, p.Start) }

// Proc is the process the event is about (for fork, the new process).
func (e *Event) Proc() ProcID { return ProcID{e.TGID, e.Start} }

// Parent is the parent of Proc when the event happened.
func (e *Event) Parent() ProcID { return ProcID{e.PPID, e.PStart} }

// Target is the path of the file the operation reached: Real when the
// kernel named it, else the name as given (Given when set, else Path), to
// be resolved against the file system (failed calls, operations without
// a descriptor, and files without a reachable path).
func (e *Event) Target() string {
	switch {
	case e.Real != "":
		return e.Real
	case e.Given != "":
		return e.Given
	}
	return e.Path
}

// Failed reports whether the operation failed (a negative Ret). Exit
// events never fail: their Ret is a non-negative exit status.
func (e *Event) Failed() bool { return e.Op != OpExit && e.Ret < 0 }

// PathOnly reports whether e is an O_PATH open: its descriptor names the
// file and reads or writes nothing (Landlock does not check it), so it
// grants and exposes no content. The sandbox's own helpers open every
// rule's path so.
func (e *Event) PathOnly() bool { return e.Op == OpOpen && e.Flags&unix.O_PATH != 0 }

// ErrnoName is the symbolic name of errno, e.g. "ENOENT".
func ErrnoName(errno int64) string {
	if name := unix.ErrnoName(syscall.Errno(errno)); name != "" {
		return name
	}
	return fmt.Sprintf("E%d", errno)
}

// Session is the trace of one process tree as its readers take it (a
// *tracer.Session): batches of events in kernel order on Events, each
// handed back with Recycle, until Close ends it with its summary.
type Session interface {
	Events() <-chan []Event
	Recycle(batch []Event)
	Close() (Summary, error)
}
