package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// openProcOf opens (O_PATH) the /proc directory of the task tid, a pid
// of the agent's PID namespace: a seccomp notification names the calling
// thread (not its thread group) in the namespace of the task that
// receives it. /proc need not be of that namespace (a root
// `authbench exec` starts the tree in a PID namespace of its own and
// keeps the launcher's /proc), and a thread other than a group's leader
// is in no listing of /proc: a pidfd of the thread translates its
// number, since the Pid line of the pidfd's fdinfo is the task's pid in
// the PID namespace of the procfs it is read from — the /proc opened
// here. Nothing is scanned. The caller confirms with NOTIF_ID_VALID,
// after everything it read, that its caller was alive all along (so no
// number was reused meanwhile).
func openProcOf(tid int) (int, error) {
	pidfd, err := unix.PidfdOpen(tid, unix.PIDFD_THREAD)
	if errors.Is(err, unix.EINVAL) {
		pidfd, err = unix.PidfdOpen(tid, 0) // before Linux 6.9: leaders only
	}
	if err != nil {
		return -1, fmt.Errorf("pidfd_open %d: %w", tid, err)
	}
	defer unix.Close(pidfd)
	info, err := os.ReadFile("/proc/self/fdinfo/" + strconv.Itoa(pidfd))
	if err != nil {
		return -1, err
	}
	pid, ok := fdinfoPid(string(info))
	if !ok {
		return -1, fmt.Errorf("task %d: not in /proc's PID namespace", tid)
	}
	return unix.Open("/proc/"+strconv.Itoa(pid), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
}

// fdinfoPid is the Pid line of a pidfd's fdinfo text: the task's pid in
// the procfs's PID namespace; false when it has none there (0) or has
// exited (-1). Pure.
func fdinfoPid(info string) (int, bool) {
	for line := range strings.SplitSeq(info, "\n") {
		if v, ok := strings.CutPrefix(line, "Pid:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			return n, err == nil && n > 0
		}
	}
	return 0, false
}
