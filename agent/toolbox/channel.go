package toolbox

import (
	"fmt"
	"net"
	"os"

	"go.uber.org/zap"
	"golang.org/x/sys/unix"
)

// The toolbox's channel is a connected pair of unix stream sockets: the
// host keeps one end, the toolbox gets the other as its stdin and stdout
// and nothing else holds it. The agent's processes run as the toolbox's
// uid, so the toolbox seals itself (Seal) before it reads a request:
// a non-dumpable process's /proc/PID/fd, fdinfo and mem, ptrace,
// pidfd_getfd and process_vm_readv need CAP_SYS_PTRACE, which a task's
// container never holds (it is not in its bounding set). A socket, unlike
// a pipe, cannot be reopened through /proc/PID/fd even by a process
// allowed to look there (ENXIO), and the descriptors are close-on-exec in
// the toolbox, so no shell it starts inherits them.

// Connect makes the channel of a toolbox about to be started: the client
// on the host's end, and the toolbox's end, to be given to it as both
// stdin and stdout (and closed here once the toolbox holds it).
// Client.Close shuts the host's writing side (the toolbox's input ends);
// the host's end is closed when the toolbox's output ends or breaks the
// protocol.
func Connect(log *zap.Logger) (*Client, *os.File, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("toolbox channel: %w", err)
	}
	host := os.NewFile(uintptr(fds[0]), "toolbox-channel")
	child := os.NewFile(uintptr(fds[1]), "toolbox-channel-child")
	fc, err := net.FileConn(host)
	host.Close()
	if err != nil {
		child.Close()
		return nil, nil, fmt.Errorf("toolbox channel: %w", err)
	}
	conn := fc.(*net.UnixConn)
	return NewClient(writeHalf{conn}, conn, log), child, nil
}

// writeHalf writes to a connection; Close shuts its writing side only.
type writeHalf struct{ c *net.UnixConn }

func (w writeHalf) Write(p []byte) (int, error) { return w.c.Write(p) }
func (w writeHalf) Close() error                { return w.c.CloseWrite() }

// Seal makes this process (the toolbox) non-dumpable and its stdin and
// stdout close-on-exec, so that the processes of the agent, which share
// its uid, can neither open its channel through /proc nor inherit it. It
// must run before the first request (before any process of the agent
// exists).
func Seal() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("seal the toolbox: PR_SET_DUMPABLE: %w", err)
	}
	for _, fd := range []int{0, 1} {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil {
			return fmt.Errorf("seal the toolbox: close-on-exec of descriptor %d: %w", fd, err)
		}
	}
	return nil
}
