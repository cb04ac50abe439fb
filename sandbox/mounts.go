package sandbox

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// hidePaths hides each directory of paths from the tree: an empty,
// read-only tmpfs (nosuid, nodev, noexec, 4 KiB) is mounted over it.
// It runs on the thread that execs, privileged and before Landlock. That
// thread first moves to a mount namespace of its own (whether or not
// LaunchOptions.OwnMountNamespace already gave the process one) whose
// mounts are all made private, so nothing reaches the launcher's
// namespace. A path that does not exist is skipped; one that is not
// absolute or not a directory is an error. A symbolic link hides what it
// points to.
func hidePaths(paths []string) *InitError {
	if len(paths) == 0 {
		return nil
	}
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			return &InitError{Stage: StageMount, Path: p, Msg: "a hidden path must be absolute"}
		}
		st, err := os.Stat(p)
		switch {
		case os.IsNotExist(err):
		case err != nil:
			return initError(StageMount, p, err)
		case !st.IsDir():
			return &InitError{Stage: StageMount, Errno: unix.ENOTDIR, Path: p, Msg: "only directories can be hidden"}
		}
	}
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return initError(StageMount, "", fmt.Errorf("unshare(CLONE_NEWNS): %w", err))
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return initError(StageMount, "/", fmt.Errorf("make mounts private: %w", err))
	}
	for _, p := range paths {
		if _, err := os.Stat(p); os.IsNotExist(err) {
			continue
		}
		flags := uintptr(unix.MS_RDONLY | unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC)
		if err := unix.Mount("authbench-hidden", p, "tmpfs", flags, "size=4k,mode=0555"); err != nil {
			return initError(StageMount, p, fmt.Errorf("hide: %w", err))
		}
	}
	return nil
}
