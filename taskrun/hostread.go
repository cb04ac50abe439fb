package taskrun

import (
	"fmt"
	"os"
	"syscall"

	"github.com/authbench/authbench/internal/safefile"
)

// maxBeneathFileBytes bounds a small file the host reads from a tree a
// task built (a rootfs's /etc/hosts, a compose service's Dockerfile in
// its copied build context): more is cut.
const maxBeneathFileBytes = 4 << 20

// readBeneath reads the regular file rel of the tree at dir beneath
// dir's descriptor: the task put what is there, so no link is followed
// in any component and a FIFO or device is refused (internal/safefile).
// A missing file wraps fs.ErrNotExist.
func readBeneath(dir, rel string) ([]byte, error) {
	root, err := safefile.OpenReadDir(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return root.ReadFileLimit(rel, maxBeneathFileBytes)
}

// openRegular opens the file host for reading when it is a regular file:
// never a link at its last component, and non-blocking, so a FIFO
// swapped in after its lstat is refused instead of blocking the reader
// (the tamper check's hash; its parents are directories of a tree no
// process runs in any more when it is read).
func openRegular(host string) (*os.File, error) {
	f, err := os.OpenFile(host, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s %w", host, safefile.ErrNotRegular)
	}
	return f, nil
}
