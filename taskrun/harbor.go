package taskrun

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Harbor's paths inside the run's rootfs (relative to its root).
const (
	logsDir        = "logs"
	agentLogsDir   = "logs/agent"
	verifierLogDir = "logs/verifier"
	solutionDir    = "solution"
	testsDir       = "tests"
)

// prepareAgentRootfs lays out what Harbor gives every agent before it
// starts: /logs/agent (the agent's own) and /logs/verifier exist.
func (r *runner) prepareAgentRootfs() error {
	root, err := os.OpenRoot(r.Rootfs.Path)
	if err != nil {
		return err
	}
	defer root.Close()
	if err := freshDir(root, logsDir, 0o755, 0, 0, false); err != nil {
		return err
	}
	if err := freshDir(root, agentLogsDir, 0o755, r.Ident.UID, r.Ident.GID, false); err != nil {
		return err
	}
	return freshDir(root, verifierLogDir, 0o755, 0, 0, false)
}

// copySolution gives the oracle and shortcut agents (solutionAgent) a
// writable copy of the task's solution/ at /solution, owned by the
// agent's user; other agents never see it.
func (r *runner) copySolution() error {
	root, err := os.OpenRoot(r.Rootfs.Path)
	if err != nil {
		return err
	}
	defer root.Close()
	if err := freshDir(root, solutionDir, 0o755, r.Ident.UID, r.Ident.GID, false); err != nil {
		return err
	}
	if err := copyTree(r.Options.Task.Path("solution"), root, solutionDir, r.Ident.UID, r.Ident.GID); err != nil {
		return fmt.Errorf("copy solution/ into the rootfs: %w", err)
	}
	return nil
}

// prepareVerifierRootfs runs after the agent has ended: /logs/verifier is
// emptied (nothing the agent planted there counts) and /tests replaced by
// a fresh copy of the task's tests/ (the agent never saw them and cannot
// have put a conftest.py there), owned by root.
func (r *runner) prepareVerifierRootfs() error {
	root, err := os.OpenRoot(r.Rootfs.Path)
	if err != nil {
		return err
	}
	defer root.Close()
	if err := freshDir(root, logsDir, 0o755, 0, 0, false); err != nil {
		return err
	}
	if err := freshDir(root, verifierLogDir, 0o755, 0, 0, true); err != nil {
		return err
	}
	if err := freshDir(root, testsDir, 0o755, 0, 0, true); err != nil {
		return err
	}
	if err := copyTree(r.Options.Task.TestsDir(), root, testsDir, 0, 0); err != nil {
		return fmt.Errorf("copy tests/ into the rootfs: %w", err)
	}
	return nil
}

// freshDir makes name a real directory in root owned by uid:gid with
// mode: whatever else is there (a file, a symlink) is removed first, and
// so is its content when empty is set.
func freshDir(root *os.Root, name string, mode os.FileMode, uid, gid int, empty bool) error {
	st, err := root.Lstat(name)
	switch {
	case err == nil && (!st.IsDir() || empty):
		if err := root.RemoveAll(name); err != nil {
			return fmt.Errorf("clear /%s: %w", name, err)
		}
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("/%s: %w", name, err)
	}
	if err := root.Mkdir(name, mode); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create /%s: %w", name, err)
	}
	if err := root.Lchown(name, uid, gid); err != nil {
		return fmt.Errorf("chown /%s: %w", name, err)
	}
	return root.Chmod(name, mode)
}

// copyTree copies the host directory src into root at dest (an existing
// directory) as uid:gid: directories and regular files (their owner can
// always write them), symlinks as symlinks; anything else is skipped.
// Symlinks of src are never followed.
func copyTree(src string, root *os.Root, dest string, uid, gid int) error {
	return filepath.WalkDir(src, func(host string, d fs.DirEntry, err error) error {
		if err != nil {
			if host == src && errors.Is(err, fs.ErrNotExist) {
				return nil // the task has no such directory
			}
			return err
		}
		rel, err := filepath.Rel(src, host)
		if err != nil {
			return err
		}
		if rel == "." {
			return nil
		}
		name := filepath.Join(dest, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			if err := root.Mkdir(name, info.Mode().Perm()|0o700); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
		case d.Type().IsRegular():
			if err := copyFile(host, root, name, info.Mode().Perm()|0o600); err != nil {
				return err
			}
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(host)
			if err != nil {
				return err
			}
			_ = root.Remove(name)
			if err := root.Symlink(target, name); err != nil {
				return err
			}
		default:
			return nil
		}
		return root.Lchown(name, uid, gid)
	})
}

func copyFile(host string, root *os.Root, name string, mode os.FileMode) error {
	in, err := os.OpenFile(host, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return err
	}
	defer in.Close()
	_ = root.Remove(name) // a symlink there would be followed (inside the root) by OpenFile
	out, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return root.Chmod(name, mode)
}
