package daemon

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// resolveTrustedRoots makes the configured trusted task roots absolute
// and free of symlinks (a root given through a symlink is trusted where
// it leads).
func resolveTrustedRoots(roots []string) ([]string, error) {
	out := make([]string, 0, len(roots))
	for _, r := range roots {
		if !filepath.IsAbs(r) {
			return nil, fmt.Errorf("trusted task root %q: must be an absolute path", r)
		}
		res, err := filepath.EvalSymlinks(r)
		if err != nil {
			return nil, fmt.Errorf("trusted task root: %w", err)
		}
		out = append(out, filepath.Clean(res))
	}
	return out, nil
}

// underRoot reports whether the clean absolute path p is root or below it.
func underRoot(p, root string) bool {
	if root == "/" {
		return true
	}
	return p == root || strings.HasPrefix(p, root+"/")
}

// checkTrustedTaskDir decides whether a caller that is not root may have
// the daemon build, run and verify the task in dir, as root: dir must lie
// under one of roots (checked first, on the path alone, so the answer
// tells nothing about the file system outside them), and every component
// from / down to dir must be a directory, no symlink, owned by root and
// not writable by group or others (the sticky bit does not make it so),
// and so must everything inside it (checkTrustedContents) — so that no
// one but root can change what the daemon reads there.
func checkTrustedTaskDir(dir string, roots []string) *ForbiddenError {
	clean := filepath.Clean(dir)
	if len(roots) == 0 {
		return forbidden(RuleUntrustedTask, "task dir %s: this daemon trusts no task directory for callers that are not root (daemon --trusted-tasks)", clean)
	}
	trusted := false
	for _, r := range roots {
		trusted = trusted || underRoot(clean, r)
	}
	if !trusted {
		return forbidden(RuleUntrustedTask, "task dir %s is not under a trusted task root (%s)", clean, strings.Join(roots, ", "))
	}
	p := "/"
	for _, part := range append([]string{""}, strings.Split(strings.TrimPrefix(clean, "/"), "/")...) {
		p = filepath.Join(p, part)
		if ferr := checkTrustedComponent(p); ferr != nil {
			return ferr
		}
	}
	return checkTrustedContents(clean)
}

// maxTaskEntries bounds the walk of checkTrustedContents.
const maxTaskEntries = 100000

// checkTrustedContents checks that everything inside the task dir is
// owned by root and not writable by group or others, so that nobody else
// can change the Dockerfile, its build context or the verifiers between
// the check and their use (symlinks are the loader's business).
func checkTrustedContents(dir string) *ForbiddenError {
	n := 0
	var ferr *ForbiddenError
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if n++; n > maxTaskEntries {
			ferr = forbidden(RuleUntrustedTask, "task dir %s has more than %d entries", dir, maxTaskEntries)
			return filepath.SkipAll
		}
		if p == dir || d.Type()&os.ModeSymlink != 0 {
			return nil
		}
		st, err := os.Lstat(p)
		if err != nil {
			return err
		}
		sys, ok := st.Sys().(*syscall.Stat_t)
		switch {
		case !ok:
			ferr = forbidden(RuleUntrustedTask, "task dir: %s: cannot read its owner", p)
		case sys.Uid != 0:
			ferr = forbidden(RuleUntrustedTask, "task dir: %s is owned by uid %d, not root", p, sys.Uid)
		case st.Mode().Perm()&0o022 != 0:
			ferr = forbidden(RuleUntrustedTask, "task dir: %s is writable by group or others (mode %04o)", p, st.Mode().Perm())
		}
		if ferr != nil {
			return filepath.SkipAll
		}
		return nil
	})
	if ferr == nil && err != nil {
		ferr = forbidden(RuleUntrustedTask, "task dir %s: %v", dir, err)
	}
	return ferr
}

// checkTrustedComponent checks one directory on the way to a task dir.
func checkTrustedComponent(p string) *ForbiddenError {
	st, err := os.Lstat(p)
	if err != nil {
		return forbidden(RuleUntrustedTask, "task dir: %s: %v", p, statError(err))
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	switch {
	case st.Mode()&os.ModeSymlink != 0:
		return forbidden(RuleUntrustedTask, "task dir: %s is a symlink (a trusted task dir is reached without symlinks)", p)
	case !st.IsDir():
		return forbidden(RuleUntrustedTask, "task dir: %s is not a directory", p)
	case !ok:
		return forbidden(RuleUntrustedTask, "task dir: %s: cannot read its owner", p)
	case sys.Uid != 0:
		return forbidden(RuleUntrustedTask, "task dir: %s is owned by uid %d, not root", p, sys.Uid)
	case st.Mode().Perm()&0o022 != 0:
		return forbidden(RuleUntrustedTask, "task dir: %s is writable by group or others (mode %04o)", p, st.Mode().Perm())
	}
	return nil
}

func statError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
