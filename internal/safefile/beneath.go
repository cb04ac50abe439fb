package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"golang.org/x/sys/unix"
)

// Host-side reads: the files the host reads that a task, an agent or a
// service could have placed (a run's upper layer, its rootfs after the
// verifier, a compose volume) are reached from the descriptor of a root
// the host made (OpenReadDir), by openat2 with RESOLVE_BENEATH,
// RESOLVE_NO_SYMLINKS and RESOLVE_NO_MAGICLINKS: a link in any component
// is refused. Only regular files are read, and what they are is decided
// on an O_PATH descriptor before anything is opened for reading, so a
// FIFO never blocks the reader and a device node planted there is never
// opened. docs/security.md ("Host-side reads") lists the sites.

// ErrNotRegular: a host-side read met something other than a regular
// file (a FIFO, a device, a socket, a directory) and refused it.
var ErrNotRegular = errors.New("is not a regular file (refused: only regular files are read)")

// Open opens the regular file rel under the directory for reading. A
// link in any component is refused (ErrSymlink), and so is anything but
// a regular file (ErrNotRegular) — before it is opened for reading.
func (d *Dir) Open(rel string) (*os.File, error) {
	pfd, err := d.openat(rel, unix.O_PATH|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(pfd)
	var st unix.Stat_t
	if err := unix.Fstat(pfd, &st); err != nil {
		return nil, fmt.Errorf("stat %s: %w", d.Join(rel), err)
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
	case unix.S_IFLNK: // O_PATH|O_NOFOLLOW opens a last-component link itself
		return nil, fmt.Errorf("%s %w", d.Join(rel), ErrSymlink)
	default:
		return nil, fmt.Errorf("%s %w (%s)", d.Join(rel), ErrNotRegular, fileKind(st.Mode))
	}
	fd, err := reopen(pfd, &st)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", d.Join(rel), err)
	}
	return os.NewFile(uintptr(fd), d.Join(rel)), nil
}

// reopen opens the regular file of the O_PATH descriptor pfd (status st)
// for reading, through /proc/self/fd: the same inode, whatever its name
// is now. Non-blocking while it is opened, blocking after.
func reopen(pfd int, st *unix.Stat_t) (int, error) {
	fd, err := unix.Open("/proc/self/fd/"+strconv.Itoa(pfd), unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		// Not wrapped: without /proc an ENOENT here is no missing file.
		return -1, fmt.Errorf("reopen through /proc/self/fd (is /proc mounted?): %v", err)
	}
	var now unix.Stat_t
	if err := unix.Fstat(fd, &now); err != nil || now.Dev != st.Dev || now.Ino != st.Ino || now.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return -1, fmt.Errorf("the file changed while it was opened: %w", ErrNotRegular)
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// fileKind names a file type for messages.
func fileKind(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFIFO:
		return "a FIFO"
	case unix.S_IFCHR:
		return "a character device"
	case unix.S_IFBLK:
		return "a block device"
	case unix.S_IFSOCK:
		return "a socket"
	case unix.S_IFDIR:
		return "a directory"
	case unix.S_IFLNK:
		return "a symbolic link"
	}
	return fmt.Sprintf("type %#o", mode&unix.S_IFMT)
}

// ReadFileLimit reads at most limit bytes of the regular file rel (as
// Open finds it): a longer file is cut, as io.LimitReader cuts it.
func (d *Dir) ReadFileLimit(rel string, limit int64) ([]byte, error) {
	f, err := d.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", d.Join(rel), err)
	}
	return data, nil
}

// FS is the directory as an fs.FS for fs.WalkDir and fs.Glob, reached
// from its descriptor as Open reaches it: a link in any component of a
// name is refused, files open only when regular, ReadDir's entries and
// Stat describe a link (Lstat) rather than follow it, so a walk never
// descends through one.
func (d *Dir) FS() fs.FS { return beneathFS{d} }

type beneathFS struct{ d *Dir }

var (
	_ fs.ReadDirFS  = beneathFS{}
	_ fs.StatFS     = beneathFS{}
	_ fs.ReadFileFS = beneathFS{}
)

func (b beneathFS) rel(op, name string) (string, error) {
	if !fs.ValidPath(name) {
		return "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	return filepath.FromSlash(name), nil
}

// Open opens a directory (for ReadDir) or a regular file.
func (b beneathFS) Open(name string) (fs.File, error) {
	rel, err := b.rel("open", name)
	if err != nil {
		return nil, err
	}
	st, err := b.Stat(name)
	if err == nil && st.IsDir() {
		fd, err := b.d.openat(rel, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
		if err != nil {
			return nil, err
		}
		return os.NewFile(uintptr(fd), b.d.Join(rel)), nil
	}
	return b.d.Open(rel)
}

// ReadFile reads the regular file name.
func (b beneathFS) ReadFile(name string) ([]byte, error) {
	rel, err := b.rel("read", name)
	if err != nil {
		return nil, err
	}
	return b.d.ReadFile(rel)
}

// Stat describes name itself: a link is described, not followed.
func (b beneathFS) Stat(name string) (fs.FileInfo, error) {
	rel, err := b.rel("stat", name)
	if err != nil {
		return nil, err
	}
	if rel == "." {
		return statAt(b.d.fd, ".", b.d.path)
	}
	parent, base, err := b.d.parent(rel)
	if err != nil {
		return nil, err
	}
	defer unix.Close(parent)
	return statAt(parent, base, b.d.Join(rel))
}

// statAt describes name in dirfd (a link itself) as os.Lstat would.
func statAt(dirfd int, name, full string) (fs.FileInfo, error) {
	fd, err := unix.Openat(dirfd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: full, Err: err}
	}
	f := os.NewFile(uintptr(fd), full)
	defer f.Close()
	return f.Stat()
}

// ReadDir lists the directory name, sorted by name; each entry's type
// and Info are its own (a link is a link).
func (b beneathFS) ReadDir(name string) ([]fs.DirEntry, error) {
	rel, err := b.rel("readdir", name)
	if err != nil {
		return nil, err
	}
	fd, err := b.d.openat(rel, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	dir := os.NewFile(uintptr(fd), b.d.Join(rel))
	defer dir.Close()
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", b.d.Join(rel), err)
	}
	slices.Sort(names)
	entries := make([]fs.DirEntry, 0, len(names))
	for _, n := range names {
		info, err := statAt(fd, n, filepath.Join(b.d.Join(rel), n))
		if err != nil {
			continue // gone since it was listed
		}
		entries = append(entries, fs.FileInfoToDirEntry(info))
	}
	return entries, nil
}
