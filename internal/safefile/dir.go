package safefile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// UntrustedError is a directory a privileged command refuses to write
// in: another user could replace what is in it.
type UntrustedError struct {
	Path   string // the directory
	Reason string // "owned by uid 1000", "writable by others (mode 0777)"
}

func (e *UntrustedError) Error() string {
	return fmt.Sprintf("%s: %s (a directory another user controls is never written in)", e.Path, e.Reason)
}

// Dir is a directory opened for the files of a command, reached from its
// descriptor: no path under it is resolved through a symbolic link, a
// magic link (/proc/self/fd) or "..", so a link planted under it is
// refused, never followed.
type Dir struct {
	fd   int // O_PATH
	path string
	uid  int
}

// rule is what a directory on the path to a Dir must satisfy.
type rule int

const (
	ruleNone     rule = iota // reading: any directory
	ruleAncestor             // root's or the caller's; writable by others only when sticky (/tmp)
	ruleOwned                // the caller's and writable by nobody else
)

// OpenOutDir opens the directory path that the user uid writes a
// command's results in (a bench's out dir), creating it and its missing
// parents (mode 0755). The directory must be uid's and writable by
// nobody else; every directory above it root's or uid's and writable by
// others only when sticky (/tmp). Otherwise it is an *UntrustedError,
// for root too.
func OpenOutDir(path string, uid int) (*Dir, error) {
	return openDir(path, uid, true, ruleOwned)
}

// OpenParent opens the existing directory that holds the file path, for
// writing that one file (a report): the directory and every one above it
// must be root's or uid's and writable by others only when sticky.
func OpenParent(path string, uid int) (*Dir, string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, "", err
	}
	d, err := openDir(filepath.Dir(abs), uid, false, ruleAncestor)
	return d, filepath.Base(abs), err
}

// OpenReadDir opens the existing directory path for reading the files
// under it; it may be anyone's.
func OpenReadDir(path string) (*Dir, error) {
	return openDir(path, -1, false, ruleNone)
}

func openDir(path string, uid int, create bool, leaf rule) (*Dir, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	// Links in the existing part of the path (/var/run → /run) are the
	// user's naming; the walk below follows none, so a directory swapped
	// for a link after this is refused.
	real, err := evalExisting(abs)
	if err != nil {
		return nil, err
	}
	fd, err := unix.Open("/", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	comps := strings.Split(strings.Trim(real, "/"), "/")
	if real == "/" {
		comps = nil
	}
	cur := "/"
	for i := 0; ; i++ {
		r := ruleAncestor
		if i == len(comps) {
			r = leaf
		}
		if leaf == ruleNone {
			r = ruleNone
		}
		if err := checkDir(fd, cur, uid, r); err != nil {
			unix.Close(fd)
			return nil, err
		}
		if i == len(comps) {
			return &Dir{fd: fd, path: real, uid: uid}, nil
		}
		next, err := openSub(fd, comps[i], create)
		unix.Close(fd)
		cur = filepath.Join(cur, comps[i])
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", cur, linkError(cur, err))
		}
		fd = next
	}
}

// evalExisting resolves the links of the longest existing prefix of abs.
func evalExisting(abs string) (string, error) {
	rest := ""
	p := abs
	for {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) || p == "/" {
			return "", err
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = filepath.Dir(p)
	}
}

// openSub opens the directory name in dirfd without following a link,
// making it first when create is set and it does not exist.
func openSub(dirfd int, name string, create bool) (int, error) {
	const flags = unix.O_PATH | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	fd, err := unix.Openat(dirfd, name, flags, 0)
	if errors.Is(err, unix.ENOENT) && create {
		if err := unix.Mkdirat(dirfd, name, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
			return -1, err
		}
		fd, err = unix.Openat(dirfd, name, flags, 0)
	}
	return fd, err
}

func checkDir(fd int, path string, uid int, r rule) error {
	if r == ruleNone {
		return nil
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	mode := st.Mode & 0o7777
	switch {
	case r == ruleOwned && int(st.Uid) != uid:
		return &UntrustedError{Path: path, Reason: fmt.Sprintf("owned by uid %d, not by the caller (uid %d)", st.Uid, uid)}
	case r == ruleOwned && mode&0o022 != 0:
		return &UntrustedError{Path: path, Reason: fmt.Sprintf("writable by others (mode %04o)", mode)}
	case r == ruleAncestor && st.Uid != 0 && int(st.Uid) != uid:
		return &UntrustedError{Path: path, Reason: fmt.Sprintf("owned by uid %d, neither root nor the caller (uid %d)", st.Uid, uid)}
	case r == ruleAncestor && mode&0o022 != 0 && mode&unix.S_ISVTX == 0:
		return &UntrustedError{Path: path, Reason: fmt.Sprintf("writable by others and not sticky (mode %04o)", mode)}
	}
	return nil
}

// linkError names a link met where none is followed.
func linkError(path string, err error) error {
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.EXDEV) {
		return fmt.Errorf("%w (or not a directory): %v", ErrSymlink, err)
	}
	return err
}

// Path is the directory's path (with the links of the name it was
// opened by resolved).
func (d *Dir) Path() string { return d.path }

// Join is the path of rel under the directory, for messages and for
// libraries that open by name (its directories are trusted: nobody but
// the caller can change what the name reaches).
func (d *Dir) Join(rel string) string { return filepath.Join(d.path, filepath.FromSlash(rel)) }

// Close closes the directory's descriptor.
func (d *Dir) Close() error { return unix.Close(d.fd) }

const resolve = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS

func (d *Dir) openat(rel string, flags int, mode uint32) (int, error) {
	fd, err := unix.Openat2(d.fd, filepath.FromSlash(rel), &unix.OpenHow{
		Flags: uint64(flags | unix.O_CLOEXEC), Mode: uint64(mode), Resolve: resolve})
	if err != nil {
		return -1, fmt.Errorf("open %s: %w", d.Join(rel), linkError(d.Join(rel), err))
	}
	return fd, nil
}

// OpenFile opens rel under the directory (os.OpenFile's flags) without
// following a link on the way or at its end.
func (d *Dir) OpenFile(rel string, flag int, perm fs.FileMode) (*os.File, error) {
	fd, err := d.openat(rel, flag|unix.O_NOFOLLOW, uint32(perm.Perm()))
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), d.Join(rel)), nil
}

// ReadFile reads the regular file rel (as Open finds it: a FIFO or a
// device there is refused, never opened for reading).
func (d *Dir) ReadFile(rel string) ([]byte, error) {
	f, err := d.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// Lstat describes rel itself (a link is described, not followed); the
// error wraps fs.ErrNotExist when there is nothing there.
func (d *Dir) Lstat(rel string) (*unix.Stat_t, error) {
	parent, base, err := d.parent(rel)
	if err != nil {
		return nil, err
	}
	defer unix.Close(parent)
	var st unix.Stat_t
	if err := unix.Fstatat(parent, base, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil, fmt.Errorf("stat %s: %w", d.Join(rel), fs.ErrNotExist)
		}
		return nil, fmt.Errorf("stat %s: %w", d.Join(rel), err)
	}
	return &st, nil
}

// parent opens the directory holding rel and returns rel's last name.
func (d *Dir) parent(rel string) (int, string, error) {
	rel = filepath.Clean(filepath.FromSlash(rel))
	dir, base := filepath.Split(rel)
	if base == "" || base == "." || base == ".." {
		return -1, "", fmt.Errorf("%s: not a file name under %s", rel, d.path)
	}
	if dir == "" {
		dir = "."
	}
	fd, err := d.openat(dir, unix.O_PATH|unix.O_DIRECTORY, 0)
	return fd, base, err
}

// MkdirAll makes the directory rel and its missing parents (mode 0755)
// under the directory, following no link.
func (d *Dir) MkdirAll(rel string) error {
	fd, err := unix.Dup(d.fd)
	if err != nil {
		return err
	}
	cur := d.path
	for _, c := range strings.Split(filepath.Clean(filepath.FromSlash(rel)), string(filepath.Separator)) {
		if c == "." || c == "" {
			continue
		}
		if c == ".." {
			unix.Close(fd)
			return fmt.Errorf("%s: not a directory under %s", rel, d.path)
		}
		next, err := openSub(fd, c, true)
		unix.Close(fd)
		cur = filepath.Join(cur, c)
		if err != nil {
			return fmt.Errorf("mkdir %s: %w", cur, linkError(cur, err))
		}
		fd = next
	}
	return unix.Close(fd)
}

// WriteFile writes data to the file rel (its directory must exist) as
// the package's WriteFile does: into a new file beside it, renamed over
// it; a link at rel is refused.
func (d *Dir) WriteFile(rel string, data []byte, perm fs.FileMode) error {
	parent, base, err := d.parent(rel)
	if err != nil {
		return err
	}
	defer unix.Close(parent)
	var st unix.Stat_t
	switch err := unix.Fstatat(parent, base, &st, unix.AT_SYMLINK_NOFOLLOW); {
	case errors.Is(err, unix.ENOENT):
	case err != nil:
		return fmt.Errorf("stat %s: %w", d.Join(rel), err)
	case st.Mode&unix.S_IFMT == unix.S_IFLNK:
		return fmt.Errorf("%s %w", d.Join(rel), ErrSymlink)
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return fmt.Errorf("%s is not a regular file", d.Join(rel))
	}
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	temp := "." + base + ".tmp-" + hex.EncodeToString(rnd[:])
	fd, err := unix.Openat(parent, temp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return fmt.Errorf("write %s: %w", d.Join(rel), err)
	}
	f := os.NewFile(uintptr(fd), d.Join(rel))
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = unix.Renameat(parent, temp, parent, base)
	}
	if err != nil {
		_ = unix.Unlinkat(parent, temp, 0)
		return fmt.Errorf("write %s: %w", d.Join(rel), err)
	}
	return nil
}

// RemoveAll removes rel and everything under it, following no link (a
// link is removed, not what it names); nothing there is no error.
func (d *Dir) RemoveAll(rel string) error {
	parent, base, err := d.parent(rel)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	if err != nil {
		return err
	}
	defer unix.Close(parent)
	if err := removeAt(parent, base); err != nil {
		return fmt.Errorf("remove %s: %w", d.Join(rel), err)
	}
	return nil
}

func removeAt(parent int, name string) error {
	err := unix.Unlinkat(parent, name, 0)
	if err == nil || errors.Is(err, unix.ENOENT) {
		return nil
	}
	if !errors.Is(err, unix.EISDIR) && !errors.Is(err, unix.EPERM) {
		return err
	}
	fd, err := unix.Openat(parent, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), name)
	names, err := f.Readdirnames(-1)
	if err != nil {
		f.Close()
		return err
	}
	for _, n := range names {
		if err := removeAt(fd, n); err != nil {
			f.Close()
			return err
		}
	}
	f.Close()
	if err := unix.Unlinkat(parent, name, unix.AT_REMOVEDIR); err != nil && !errors.Is(err, unix.ENOENT) {
		return err
	}
	return nil
}
