package tasks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// errOutside is why a file of the task is refused when its path, through
// symlinks, leads out of the task directory.
var errOutside = errors.New("a symlink leads out of the task directory")

// openBeneath opens rel inside the directory dirfd, refusing (with
// errOutside) any path that a symlink or ".." would take out of it:
// openat2 RESOLVE_BENEATH, checked by the kernel during the lookup, so
// nothing outside is opened or even looked up.
func openBeneath(dirfd int, rel string, flags int) (*os.File, error) {
	fd, err := unix.Openat2(dirfd, rel, &unix.OpenHow{
		Flags:   uint64(flags | unix.O_CLOEXEC),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	})
	switch {
	case errors.Is(err, unix.EXDEV):
		return nil, &fs.PathError{Op: "open", Path: rel, Err: errOutside}
	case err != nil:
		return nil, &fs.PathError{Op: "open", Path: rel, Err: err}
	}
	return os.NewFile(uintptr(fd), rel), nil
}

// statBeneath is os.Stat of rel inside dirfd, refusing what lies outside;
// follow false does not follow a final symlink (os.Lstat).
func statBeneath(dirfd int, rel string, follow bool) (fs.FileInfo, error) {
	flags := unix.O_PATH
	if !follow {
		flags |= unix.O_NOFOLLOW
	}
	f, err := openBeneath(dirfd, rel, flags)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", rel, err)
	}
	return st, nil
}

// openDir opens the task directory for openBeneath.
func openDir(dir string) (int, error) {
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	return fd, nil
}
