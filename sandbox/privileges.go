package sandbox

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// closeInheritedFDs marks every descriptor above stderr close-on-exec,
// so the command starts with stdin, stdout and stderr only. This is the
// rule for inherited descriptors: Landlock checks a file when it is
// opened, so a descriptor opened outside the sandbox (for example a
// forbidden file the calling shell opened as fd 5) would keep its rights
// inside. The three standard streams are the deliberate channel between
// the caller and the command and are kept.
func closeInheritedFDs() error {
	err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	if err == nil {
		return nil
	}
	if !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("close_range: %w", err)
	}
	// Kernels before 5.11: walk /proc/self/fd.
	entries, rerr := os.ReadDir("/proc/self/fd")
	if rerr != nil {
		return fmt.Errorf("list open descriptors: %w", rerr)
	}
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err == nil && fd > 2 {
			unix.CloseOnExec(fd)
		}
	}
	return nil
}

// setIdentity drops to uid and gid with the supplementary groups (none
// when empty). The syscall package applies each change to every thread of
// the process.
//
// A credential change clears the parent-death signal, so it is armed
// again afterwards; if the parent died in between, the process exits.
func setIdentity(uid, gid int, groups []int) error {
	if alreadyIdentity(uid, gid, groups) {
		// Nothing to change, and a process without CAP_SETGID (root
		// inside a confined tree) could not even set its groups.
		return nil
	}
	var deathSig int32
	if err := unix.Prctl(unix.PR_GET_PDEATHSIG, uintptr(unsafe.Pointer(&deathSig)), 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_GET_PDEATHSIG): %w", err)
	}
	ppid := os.Getppid()
	if err := syscall.Setgroups(groups); err != nil {
		return fmt.Errorf("setgroups %v: %w", groups, err)
	}
	if err := syscall.Setresgid(gid, gid, gid); err != nil {
		return fmt.Errorf("setgid %d: %w", gid, err)
	}
	if err := syscall.Setresuid(uid, uid, uid); err != nil {
		return fmt.Errorf("setuid %d: %w", uid, err)
	}
	return setDeathSignal(int(deathSig), ppid)
}

// setDeathSignal sets the parent-death signal sig (0: none) and fails if
// the parent (ppid, read before) is already gone. A PID namespace's init
// sees its parent as pid 0 before and after, so there it cannot tell.
func setDeathSignal(sig, ppid int) error {
	if sig == 0 {
		return nil
	}
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(sig), 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_PDEATHSIG): %w", err)
	}
	if os.Getppid() != ppid {
		return errors.New("the parent died before its death signal was set")
	}
	return nil
}

// setNoNewPrivs sets no_new_privs: setuid bits and file capabilities no
// longer grant anything at exec, and seccomp filters may be installed
// without privileges. seccomp's TSYNC carries it to the other threads.
func setNoNewPrivs() error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	return nil
}

// alreadyIdentity reports whether every uid and gid of this process is
// already uid and gid, with exactly the supplementary groups (as a set).
func alreadyIdentity(uid, gid int, groups []int) bool {
	ruid, euid, suid := unix.Getresuid()
	rgid, egid, sgid := unix.Getresgid()
	have, err := unix.Getgroups()
	return err == nil && sameGroups(have, groups) &&
		ruid == uid && euid == uid && suid == uid && rgid == gid && egid == gid && sgid == gid
}

// sameGroups reports whether a and b hold the same groups, in any order.
func sameGroups(a, b []int) bool {
	set := func(g []int) []int { return slices.Compact(slices.Sorted(slices.Values(g))) }
	return slices.Equal(set(a), set(b))
}
