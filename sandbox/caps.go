package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// keptCapabilities are the capabilities a command started as root keeps
// (the rest leave the bounding set before exec, so no program of the
// tree can have them): file ownership and permission overrides, which
// builds run as root rely on, and changing identity and killing (Landlock
// scoping still confines signals to the tree). Dropped on purpose, among
// others: CAP_SYS_ADMIN (mounts, namespaces, /proc/PID/map_files, which
// would open anonymous memory for execution), CAP_MKNOD (device nodes
// in writable directories), CAP_DAC_READ_SEARCH (open_by_handle_at),
// CAP_SYS_PTRACE, CAP_SYS_MODULE, CAP_SYS_RAWIO, CAP_BPF, CAP_PERFMON,
// CAP_SYS_CHROOT, CAP_NET_ADMIN, CAP_SETFCAP and CAP_SYS_TIME.
var keptCapabilities = []struct {
	name string
	nr   int
}{
	{"CAP_CHOWN", unix.CAP_CHOWN},
	{"CAP_DAC_OVERRIDE", unix.CAP_DAC_OVERRIDE},
	{"CAP_FOWNER", unix.CAP_FOWNER},
	{"CAP_FSETID", unix.CAP_FSETID},
	{"CAP_KILL", unix.CAP_KILL},
	{"CAP_SETGID", unix.CAP_SETGID},
	{"CAP_SETUID", unix.CAP_SETUID},
	{"CAP_SETPCAP", unix.CAP_SETPCAP},
	{"CAP_NET_BIND_SERVICE", unix.CAP_NET_BIND_SERVICE},
	{"CAP_AUDIT_WRITE", unix.CAP_AUDIT_WRITE},
}

// HeldCapabilities returns the capabilities the command will hold: the
// kept set when it runs as root, none otherwise (no_new_privs ignores
// setuid bits and file capabilities). The seccomp compiler uses it for
// Docker profiles' "caps" conditions.
func HeldCapabilities(runAsRoot bool) map[string]bool {
	held := map[string]bool{}
	if runAsRoot {
		for _, c := range keptCapabilities {
			held[c.name] = true
		}
	}
	return held
}

// lastCap returns the highest capability number of this kernel.
func lastCap() int {
	data, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
			return n
		}
	}
	return unix.CAP_LAST_CAP
}

// dropBoundingCapabilities removes every capability but the kept ones
// from the calling thread's bounding set (the thread that execs). It
// needs CAP_SETPCAP; without it (not root) there is nothing to drop.
func dropBoundingCapabilities() error {
	kept := map[int]bool{}
	for _, c := range keptCapabilities {
		kept[c.nr] = true
	}
	last := lastCap()
	for c := 0; c <= last; c++ {
		if kept[c] {
			continue
		}
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		switch {
		case err == nil, errors.Is(err, unix.EINVAL):
		case errors.Is(err, unix.EPERM) && os.Geteuid() != 0:
			return nil
		default:
			return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
		}
	}
	return nil
}
