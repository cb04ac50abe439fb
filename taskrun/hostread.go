package taskrun

import (
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
