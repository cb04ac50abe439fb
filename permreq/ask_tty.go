package permreq

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// TTY is a terminal the ask decider asks on: an open terminal device
// whose unread input it discards before each prompt.
type TTY struct{ *os.File }

// FlushInput discards input typed before the prompt (TCIFLUSH).
func (t TTY) FlushInput() error {
	return unix.IoctlSetInt(int(t.Fd()), unix.TCFLSH, unix.TCIFLUSH)
}

// OpenTTY opens path (the controlling terminal is /dev/tty) for the ask
// decider: read-write, non-blocking so that reads have deadlines, never
// becoming this process's controlling terminal; anything but a terminal
// is refused.
func OpenTTY(path string) (TTY, error) {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return TTY{}, fmt.Errorf("decider ask: open the terminal %s: %w", path, err)
	}
	if _, err := unix.IoctlGetTermios(fd, unix.TCGETS); err != nil {
		unix.Close(fd)
		return TTY{}, fmt.Errorf("decider ask: %s is not a terminal: %w", path, err)
	}
	return TTY{os.NewFile(uintptr(fd), path)}, nil
}
