package daemon

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"
)

// DefaultSocket is where the daemon listens unless told otherwise.
const DefaultSocket = "/run/authbench/authbench.sock"

// ErrDaemonRunning is returned when another daemon already serves the
// socket: it is never taken over.
var ErrDaemonRunning = errors.New("another authbench daemon is serving this socket")

// listenSocket creates the unix socket path, refusing to replace anything
// that is not a stale socket, and gives it mode 0660 and group gid (when
// gid is not 0).
func listenSocket(path string, gid uint32) (*net.UnixListener, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("socket dir: %w", err)
	}
	st, err := os.Lstat(path)
	switch {
	case err == nil && st.Mode()&os.ModeSocket == 0:
		return nil, fmt.Errorf("%s exists and is not a socket; refusing to replace it", path)
	case err == nil:
		if SocketAlive(path) {
			return nil, fmt.Errorf("%s: %w", path, ErrDaemonRunning)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("remove stale socket %s: %w", path, err)
		}
	case !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("socket %s: %w", path, err)
	}
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	l.SetUnlinkOnClose(true)
	if err := os.Chmod(path, 0o660); err != nil {
		l.Close()
		return nil, fmt.Errorf("chmod %s: %w", path, err)
	}
	if gid != 0 {
		if err := os.Chown(path, 0, int(gid)); err != nil {
			l.Close()
			return nil, fmt.Errorf("chown %s: %w", path, err)
		}
	}
	return l, nil
}

// SocketAlive reports whether something accepts connections on the unix
// socket path.
func SocketAlive(path string) bool {
	c, err := net.DialTimeout("unix", path, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}
