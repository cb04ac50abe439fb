package daemon

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// checkTaskDir decides whether caller may have the daemon (root) work
// from task directory dir: build its image, run its verifiers. Root may
// use any directory. Anyone else only a directory that lies under a
// trusted root (lexically, before the file system is looked at, so
// nothing is learnt about other directories), whose path has no
// symlink, and whose every component from / down is owned by root and
// not writable by group or other — so no one but root can change it
// after this check.
func checkTaskDir(dir string, caller Peer, trusted []string) error {
	if caller.UID == 0 {
		return nil
	}
	clean := filepath.Clean(dir)
	if !underAny(clean, trusted) {
		return &ForbiddenError{Rule: RuleTrustedTasks, Reason: fmt.Sprintf(
			"task.dir %s lies under no trusted task root (%s); only root may run tasks from elsewhere", clean, rootsList(trusted))}
	}
	for _, p := range pathPrefixes(clean) {
		var st syscall.Stat_t
		if err := syscall.Lstat(p, &st); err != nil {
			return &ForbiddenError{Rule: RuleTaskDirOwner, Reason: fmt.Sprintf("task.dir: %s: %v", p, err)}
		}
		if reason := componentProblem(st.Mode, st.Uid); reason != "" {
			rule := RuleTaskDirOwner
			if st.Mode&syscall.S_IFMT == syscall.S_IFLNK {
				rule = RuleTaskDirSymlink
			}
			return &ForbiddenError{Rule: rule, Reason: fmt.Sprintf("task.dir: %s %s", p, reason)}
		}
	}
	return nil
}

// componentProblem says what makes a path component with this mode and
// owner untrusted, "" when nothing does.
func componentProblem(mode, uid uint32) string {
	switch {
	case mode&syscall.S_IFMT == syscall.S_IFLNK:
		return "is a symlink (a task directory's path must resolve without symlinks)"
	case mode&syscall.S_IFMT != syscall.S_IFDIR:
		return "is not a directory"
	case uid != 0:
		return fmt.Sprintf("is owned by uid %d, not root", uid)
	case mode&0o022 != 0:
		return fmt.Sprintf("is writable by group or other (mode %04o)", mode&0o7777)
	}
	return ""
}

// pathPrefixes lists "/", "/a", "/a/b", ... down to the absolute clean
// path p.
func pathPrefixes(p string) []string {
	out := []string{"/"}
	cur := ""
	for _, part := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		if part == "" {
			continue
		}
		cur += "/" + part
		out = append(out, cur)
	}
	return out
}

// underAny reports whether the clean path p is one of roots or lies
// under one.
func underAny(p string, roots []string) bool {
	for _, r := range roots {
		r = filepath.Clean(r)
		if p == r || strings.HasPrefix(p, strings.TrimSuffix(r, "/")+"/") {
			return true
		}
	}
	return false
}

func rootsList(roots []string) string {
	if len(roots) == 0 {
		return "none configured: daemon --trusted-tasks"
	}
	return strings.Join(roots, ", ")
}

// ResolveTrustedRoots makes each trusted task root absolute and
// symlink-free (task directories are compared with them lexically).
func ResolveTrustedRoots(roots []string) ([]string, error) {
	out := make([]string, 0, len(roots))
	for _, r := range roots {
		if !filepath.IsAbs(r) {
			return nil, fmt.Errorf("trusted task root %q: must be an absolute path", r)
		}
		res, err := filepath.EvalSymlinks(r)
		if err != nil {
			return nil, fmt.Errorf("trusted task root: %w", err)
		}
		if st, err := os.Stat(res); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("trusted task root %s: not a directory", r)
		}
		out = append(out, res)
	}
	return out, nil
}
