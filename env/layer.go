package env

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Overlay's marks in a layer directory (as containers/storage's overlay
// driver keeps each layer): a deleted path is a 0/0 character device, a
// directory that hides everything below it carries opaqueXattr = "y".
const (
	overlayXattrPrefix = "trusted.overlay."
	opaqueXattr        = overlayXattrPrefix + "opaque"
)

// OverlayLowers returns the lower directories, topmost first, of the
// overlay mounted on mountpoint, read from the text of
// /proc/self/mountinfo. It fails when mountpoint is not an overlay mount
// or a lower directory is not an absolute path (containers/storage uses
// relative ones when the list is too long for one mount call).
func OverlayLowers(mountinfo []byte, mountpoint string) ([]string, error) {
	sc := bufio.NewScanner(bytes.NewReader(mountinfo))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		sep := -1
		for i, f := range fields {
			if f == "-" && i >= 6 {
				sep = i
				break
			}
		}
		if sep < 0 || len(fields) < sep+4 || unescapeMountinfo(fields[4]) != mountpoint {
			continue
		}
		if fields[sep+1] != "overlay" {
			return nil, fmt.Errorf("%s is a %s mount, not overlay", mountpoint, fields[sep+1])
		}
		var lowers []string
		for _, opt := range strings.Split(fields[sep+3], ",") {
			key, val, _ := strings.Cut(opt, "=")
			if key != "lowerdir" && key != "lowerdir+" {
				continue
			}
			for _, l := range strings.Split(val, ":") {
				l = unescapeMountinfo(l)
				if !filepath.IsAbs(l) {
					return nil, fmt.Errorf("overlay on %s: lower directory %q is not an absolute path", mountpoint, l)
				}
				lowers = append(lowers, l)
			}
		}
		if len(lowers) == 0 {
			return nil, fmt.Errorf("overlay on %s: no lowerdir option", mountpoint)
		}
		return lowers, nil
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("%s is not a mount point", mountpoint)
}

// unescapeMountinfo undoes the kernel's octal escapes (\040 for a space,
// \072 for a colon, \134 for a backslash ...) in a mountinfo field.
func unescapeMountinfo(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// applyLayer applies the overlay-format layer directory layer onto the
// tree dst, as overlayfs would show layer above dst: whiteouts remove,
// opaque directories hide dst's entries below them, every other entry
// replaces dst's. dst may share inodes (hard links) with other trees, so
// applyLayer never writes into an existing file: it unlinks it and puts a
// copy of the layer's file in its place. Directories get the layer's
// owner, mode, extended attributes and times. A layer
// with overlay marks applyLayer does not know (redirects, metacopy) is
// refused.
func applyLayer(layer, dst string) error {
	var dirs []string
	var cp layerCopier
	err := filepath.WalkDir(layer, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(layer, p)
		if rel == "." {
			return nil
		}
		target := filepath.Join(dst, rel)
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			return err
		}
		if err := checkOverlayXattrs(p, st.Mode&unix.S_IFMT == unix.S_IFDIR); err != nil {
			return err
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFCHR:
			if st.Rdev == 0 { // whiteout
				return os.RemoveAll(target)
			}
		case unix.S_IFDIR:
			dirs = append(dirs, rel)
			var tst unix.Stat_t
			err := unix.Lstat(target, &tst)
			switch {
			case err == nil && tst.Mode&unix.S_IFMT == unix.S_IFDIR:
				if opaque(p) {
					return emptyDir(target)
				}
				return nil
			case err == nil:
				if err := os.Remove(target); err != nil {
					return err
				}
			case !errors.Is(err, unix.ENOENT):
				return err
			}
			return os.Mkdir(target, 0o700) // metadata once its entries are in
		}
		if err := os.RemoveAll(target); err != nil {
			return err
		}
		return cp.copyEntry(p, target, &st)
	})
	if err != nil {
		return fmt.Errorf("apply layer %s: %w", layer, err)
	}
	for i := len(dirs) - 1; i >= 0; i-- { // children before parents: times stay
		src := filepath.Join(layer, dirs[i])
		var st unix.Stat_t
		if err := unix.Lstat(src, &st); err != nil {
			return fmt.Errorf("apply layer %s: %w", layer, err)
		}
		if err := setMeta(src, filepath.Join(dst, dirs[i]), &st); err != nil {
			return fmt.Errorf("apply layer %s: %w", layer, err)
		}
	}
	return nil
}

// checkOverlayXattrs refuses overlay marks other than a directory's
// opaque flag.
func checkOverlayXattrs(p string, dir bool) error {
	names, err := listXattrs(p)
	if err != nil {
		return err
	}
	for _, n := range names {
		if strings.HasPrefix(n, overlayXattrPrefix) && !(dir && n == opaqueXattr) {
			return fmt.Errorf("%s: overlay attribute %s is not supported", p, n)
		}
	}
	return nil
}

func opaque(dir string) bool {
	buf := make([]byte, 8)
	n, err := unix.Lgetxattr(dir, opaqueXattr, buf)
	return err == nil && n == 1 && buf[0] == 'y'
}

// layerCopier copies a layer's non-directories; files that share an
// inode in the layer share one in the copy.
type layerCopier struct {
	copied map[[2]uint64]string
}

// copyEntry makes dst (absent) a copy of the non-directory src, whose
// Lstat is st: content, link target or device number, then owner, mode,
// extended attributes (but overlay's) and times. It copies rather than
// links because containers/storage keeps its layers under a mount of
// their own, and the kernel refuses links across mounts.
func (c *layerCopier) copyEntry(src, dst string, st *unix.Stat_t) error {
	id := [2]uint64{st.Dev, st.Ino}
	if first, ok := c.copied[id]; ok && st.Nlink > 1 {
		return os.Link(first, dst)
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		if err := copyContent(src, dst); err != nil {
			return err
		}
	case unix.S_IFLNK:
		target, err := os.Readlink(src)
		if err != nil {
			return err
		}
		if err := os.Symlink(target, dst); err != nil {
			return err
		}
		if err := unix.Lchown(dst, int(imageID(st.Uid)), int(imageID(st.Gid))); err != nil {
			return err
		}
		return setTimes(dst, st)
	default: // devices, fifos, sockets
		if err := unix.Mknod(dst, st.Mode, int(st.Rdev)); err != nil {
			return err
		}
	}
	if err := setMeta(src, dst, st); err != nil {
		return err
	}
	if st.Nlink > 1 {
		if c.copied == nil {
			c.copied = map[[2]uint64]string{}
		}
		c.copied[id] = dst
	}
	return nil
}

func copyContent(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// setMeta gives dst (not a symlink) the owner, extended attributes (but
// overlay's), mode and times of src, whose Lstat is st. The owner comes
// first: chown clears set-id bits and file capabilities.
func setMeta(src, dst string, st *unix.Stat_t) error {
	if err := unix.Lchown(dst, int(imageID(st.Uid)), int(imageID(st.Gid))); err != nil {
		return err
	}
	names, err := listXattrs(src)
	if err != nil {
		return err
	}
	for _, n := range names {
		if strings.HasPrefix(n, overlayXattrPrefix) {
			continue
		}
		v, err := getXattr(src, n)
		if err != nil {
			return err
		}
		if err := unix.Lsetxattr(dst, n, imageXattr(n, v), 0); err != nil {
			return fmt.Errorf("set %s on %s: %w", n, dst, err)
		}
	}
	if err := unix.Chmod(dst, st.Mode&07777); err != nil {
		return err
	}
	return setTimes(dst, st)
}

func setTimes(dst string, st *unix.Stat_t) error {
	ts := []unix.Timespec{st.Atim, st.Mtim}
	return unix.UtimesNanoAt(unix.AT_FDCWD, dst, ts, unix.AT_SYMLINK_NOFOLLOW)
}

func listXattrs(p string) ([]string, error) {
	n, err := unix.Llistxattr(p, nil)
	if err != nil || n == 0 {
		if errors.Is(err, unix.ENOTSUP) {
			return nil, nil
		}
		return nil, err
	}
	buf := make([]byte, n)
	if n, err = unix.Llistxattr(p, buf); err != nil {
		return nil, err
	}
	var names []string
	for _, n := range bytes.Split(buf[:n], []byte{0}) {
		if len(n) > 0 {
			names = append(names, string(n))
		}
	}
	return names, nil
}

func getXattr(p, name string) ([]byte, error) {
	n, err := unix.Lgetxattr(p, name, nil)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, n)
	n, err = unix.Lgetxattr(p, name, buf)
	return buf[:n], err
}
