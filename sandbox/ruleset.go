package sandbox

import (
	"errors"
	"fmt"
	"path"
	"runtime"
	"strings"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/policy"
)

// Ruleset is a Landlock ruleset that a confined process keeps to
// restrict threads of its own later, and that may grow (AddRule) while
// domains made from it before keep what they had: how a model agent's
// tool process applies run-time grants (docs/security.md, "Permission
// requests"). Landlock cannot widen a domain, so the process holding a
// Ruleset must itself be confined no tighter than anything the ruleset
// may come to grant.
type Ruleset struct {
	fd      int
	flags   uint32
	handled policy.Access
}

// NewRuleset builds plan's ruleset for the running kernel exactly as
// sandbox-init builds its own: rule paths opened now, in this process's
// view of the file system, run-time rules placed.
func NewRuleset(plan *policy.Plan) (*Ruleset, error) {
	abi := KernelLandlockABI()
	tab, ok := abiFor(abi)
	if !ok {
		return nil, ErrNoLandlock
	}
	fd, flags, err := buildRuleset(plan, abi)
	if err != nil {
		return nil, err
	}
	return &Ruleset{fd: fd, flags: flags, handled: tab.fs}, nil
}

// ErrGrantPath is wrapped by AddRule's refusals of a rule's path.
var ErrGrantPath = errors.New("refused grant path")

// AddRule adds rule r to the ruleset. Its path is opened now, in this
// process's view (openGrantPath): a symlink anywhere on it, a file of another type than
// the rule's, and a regular file with more than one hard link (a link
// made to a file the rule would not name) are refused (ErrGrantPath),
// nothing added.
func (rs *Ruleset) AddRule(r policy.Rule) error {
	fd, err := openGrantPath(r)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	acc := r.Access & rs.handled
	if !r.Dir {
		acc &= policy.AccessFileOnly
	}
	if acc == 0 {
		return nil
	}
	if err := ll.LandlockAddPathBeneathRule(rs.fd, &ll.PathBeneathAttr{AllowedAccess: uint64(acc), ParentFd: fd}, 0); err != nil {
		return fmt.Errorf("landlock_add_rule %s: %w", r.Path, err)
	}
	return nil
}

// CheckGrantPath reports what AddRule would refuse of r's path now.
func CheckGrantPath(r policy.Rule) error {
	fd, err := openGrantPath(r)
	if err == nil {
		unix.Close(fd)
	}
	return err
}

// openGrantPath opens r's path O_PATH one component at a time with
// O_NOFOLLOW (openat2 is served by the openat2 agent, or refused, under
// the container's seccomp filter) and checks what it found.
func openGrantPath(r policy.Rule) (int, error) {
	fd, err := openNoSymlinks(r.Path)
	if err != nil {
		return -1, fmt.Errorf("%w: %w", ErrGrantPath, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("stat %s: %w", r.Path, err)
	}
	isDir := st.Mode&unix.S_IFMT == unix.S_IFDIR
	switch {
	case isDir != r.Dir:
		err = fmt.Errorf("%w: %s changed type since the grant was compiled (directory: %v)", ErrGrantPath, r.Path, isDir)
	case st.Mode&unix.S_IFMT == unix.S_IFREG && st.Nlink > 1:
		err = fmt.Errorf("%w: %s has %d hard links", ErrGrantPath, r.Path, st.Nlink)
	}
	if err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// openNoSymlinks opens the absolute, clean path p O_PATH, refusing a
// symbolic link as any component ("." and ".." are refused too).
func openNoSymlinks(p string) (int, error) {
	if !strings.HasPrefix(p, "/") || path.Clean(p) != p {
		return -1, fmt.Errorf("%s is not an absolute clean path", p)
	}
	fd, err := unix.Open("/", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("open /: %w", err)
	}
	for _, name := range strings.Split(p[1:], "/") {
		if name == "" {
			continue
		}
		next, err := unix.Openat(fd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		if err != nil {
			return -1, fmt.Errorf("open %s: %w", p, err)
		}
		var st unix.Stat_t
		if err := unix.Fstat(next, &st); err != nil {
			unix.Close(next)
			return -1, fmt.Errorf("stat %s: %w", p, err)
		}
		if st.Mode&unix.S_IFMT == unix.S_IFLNK {
			unix.Close(next)
			return -1, fmt.Errorf("%s: a symbolic link on the path (%s)", p, name)
		}
		fd = next
	}
	return fd, nil
}

// RestrictThread locks the calling goroutine to its OS thread and
// restricts that thread to the ruleset (no_new_privs set on it). The
// thread stays restricted: the goroutine must end without unlocking, and
// Go then ends the thread rather than reuse it. Processes the thread
// starts inherit its domain.
func (rs *Ruleset) RestrictThread() error {
	runtime.LockOSThread()
	return restrictToRuleset(rs.fd, rs.flags, false)
}

// Close releases the ruleset.
func (rs *Ruleset) Close() error {
	if rs.fd < 0 {
		return nil
	}
	err := unix.Close(rs.fd)
	rs.fd = -1
	return err
}
