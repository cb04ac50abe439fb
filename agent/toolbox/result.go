package toolbox

import (
	"errors"
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// errorResult is a failed operation: the error's text, and its errno's
// name when the kernel refused.
func errorResult(id uint64, err error) Result {
	return Result{ID: id, Error: err.Error(), Errno: ErrnoName(err), Output: "error: " + err.Error()}
}

// ErrnoName is the name of the errno inside err ("EACCES"), "" when it
// holds none.
func ErrnoName(err error) string {
	var e syscall.Errno
	if !errors.As(err, &e) {
		return ""
	}
	if name := unix.ErrnoName(e); name != "" {
		return name
	}
	return fmt.Sprintf("errno %d", int(e))
}

// bounded keeps the first and last bytes of a stream up to max in total
// and counts what it drops in between.
type bounded struct {
	max     int
	head    []byte
	tail    []byte // ring of the last max/2 bytes once head is full
	tailPos int
	total   int64
}

func newBounded(max int) *bounded { return &bounded{max: max} }

func (b *bounded) Write(p []byte) (int, error) {
	n := len(p)
	b.total += int64(n)
	headMax := b.max - b.max/2
	if len(b.head) < headMax {
		k := min(headMax-len(b.head), len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	tailMax := b.max / 2
	for len(p) > 0 && tailMax > 0 {
		if len(b.tail) < tailMax {
			k := min(tailMax-len(b.tail), len(p))
			b.tail = append(b.tail, p[:k]...)
			p = p[k:]
			continue
		}
		k := copy(b.tail[b.tailPos:], p)
		b.tailPos = (b.tailPos + k) % tailMax
		p = p[k:]
	}
	return n, nil
}

// dropped is the number of bytes not kept.
func (b *bounded) dropped() int64 { return b.total - int64(len(b.head)+len(b.tail)) }

// String is the kept text, with a note where bytes were dropped.
func (b *bounded) String() string {
	tail := append(append([]byte(nil), b.tail[b.tailPos:]...), b.tail[:b.tailPos]...)
	if d := b.dropped(); d > 0 {
		return fmt.Sprintf("%s\n[... %d bytes of output dropped (%d in all; the first %d and last %d bytes are shown) ...]\n%s",
			b.head, d, b.total, len(b.head), len(tail), tail)
	}
	return string(b.head) + string(tail)
}
