package sandbox

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// hidePaths hides each path of paths from the tree: an empty, read-only
// tmpfs (nosuid, nodev, noexec, 4 KiB) is mounted over a directory, and
// /dev/null, bound read-only, over anything else (a unix socket then
// refuses connections: it is no socket any more).
// It runs on the thread that execs, privileged and before Landlock. That
// thread first moves to a mount namespace of its own (whether or not
// LaunchOptions.OwnMountNamespace already gave the process one) whose
// mounts are all made private, so nothing reaches the launcher's
// namespace. A path that does not exist is skipped; one that is not
// absolute is an error. A symbolic link hides what it points to.
func hidePaths(paths []string) *InitError {
	if len(paths) == 0 {
		return nil
	}
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			return &InitError{Stage: StageMount, Path: p, Msg: "a hidden path must be absolute"}
		}
		if _, err := os.Stat(p); err != nil && !os.IsNotExist(err) {
			return initError(StageMount, p, err)
		}
	}
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return initError(StageMount, "", fmt.Errorf("unshare(CLONE_NEWNS): %w", err))
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return initError(StageMount, "/", fmt.Errorf("make mounts private: %w", err))
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if os.IsNotExist(err) {
			continue
		}
		if err == nil {
			err = cover(p, st.IsDir())
		}
		if err != nil {
			return initError(StageMount, p, fmt.Errorf("hide: %w", err))
		}
	}
	return nil
}

// cover mounts an empty read-only tmpfs over directory p, or /dev/null,
// bound read-only, over any other file.
func cover(p string, dir bool) error {
	flags := uintptr(unix.MS_RDONLY | unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC)
	if dir {
		return unix.Mount("authbench-hidden", p, "tmpfs", flags, "size=4k,mode=0555")
	}
	if err := unix.Mount("/dev/null", p, "", unix.MS_BIND, ""); err != nil {
		return err
	}
	return unix.Mount("", p, "", unix.MS_REMOUNT|unix.MS_BIND|flags, "")
}
