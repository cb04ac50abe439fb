package sandbox

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// seccompSetModeFilter is SECCOMP_SET_MODE_FILTER.
const seccompSetModeFilter = 1

// installFilter loads f into the kernel for every thread of the process
// (SECCOMP_FILTER_FLAG_TSYNC). no_new_privs must be set first (or the
// caller must hold CAP_SYS_ADMIN).
func installFilter(f *Filter) error {
	if len(f.Program) == 0 {
		return errors.New("seccomp: empty filter")
	}
	prog := make([]unix.SockFilter, len(f.Program))
	for i, in := range f.Program {
		prog[i] = unix.SockFilter{Code: uint16(in[0]), Jt: uint8(in[1]), Jf: uint8(in[2]), K: in[3]}
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	r, _, errno := unix.Syscall(unix.SYS_SECCOMP, seccompSetModeFilter, uintptr(f.Flags|filterFlagTSync), uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if errno != 0 {
		return fmt.Errorf("seccomp(SET_MODE_FILTER, profile %s): %w", f.Profile, errno)
	}
	if r != 0 {
		return fmt.Errorf("seccomp(SET_MODE_FILTER, profile %s): thread %d could not be synchronised", f.Profile, r)
	}
	return nil
}
