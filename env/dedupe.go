package env

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/internal/safefile"
)

// dedupe replaces each regular file of rootfs that is identical to the
// file at the same path in base (content, mode, owner, mtime, no xattrs)
// by a hard link to it, so that task images share the base's files on
// disk. Both trees are only ever read afterwards (runs write to overlay
// upper directories), so sharing inodes is safe. It returns the bytes
// shared with the base, counting files that are its already; a file it
// cannot compare is left alone.
func dedupe(base, rootfs string) (int64, error) {
	// The base's files are reached beneath its descriptor: a link in the
	// base (/var/run → /run) never leads the comparison, or the hard
	// link, to a host file (internal/safefile).
	bdir, err := safefile.OpenReadDir(base)
	if err != nil {
		return 0, nil // no base to share with
	}
	defer bdir.Close()
	var saved int64
	err = filepath.WalkDir(rootfs, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(rootfs, p)
		var st unix.Stat_t
		if unix.Lstat(p, &st) != nil {
			return nil
		}
		bst, err := bdir.Lstat(rel)
		if err != nil {
			return nil
		}
		if st.Ino == bst.Ino && st.Dev == bst.Dev {
			saved += st.Size // linked already (exportOverBase)
			return nil
		}
		if !sameMeta(&st, bst) || hasXattrs(p) {
			return nil
		}
		fb, err := bdir.Open(rel)
		if err != nil {
			return nil
		}
		defer fb.Close()
		if n, err := unix.Flistxattr(int(fb.Fd()), nil); err != nil || n > 0 {
			return nil
		}
		if same, err := sameContent(p, fb); err != nil || !same {
			return nil
		}
		tmp := p + ".authbench-link"
		// The inode compared, whatever its name in the base is now.
		if err := unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(int(fb.Fd())), unix.AT_FDCWD, tmp, unix.AT_SYMLINK_FOLLOW); err != nil {
			return nil // e.g. another file system: keep the copy
		}
		if err := os.Rename(tmp, p); err != nil {
			os.Remove(tmp)
			return err
		}
		saved += st.Size
		return nil
	})
	return saved, err
}

func sameMeta(a, b *unix.Stat_t) bool {
	if a.Ino == b.Ino && a.Dev == b.Dev {
		return false // already one file
	}
	return a.Mode == b.Mode && a.Uid == b.Uid && a.Gid == b.Gid && a.Size == b.Size &&
		a.Mtim == b.Mtim && a.Mode&syscall.S_IFMT == syscall.S_IFREG
}

func hasXattrs(p string) bool {
	n, err := unix.Llistxattr(p, nil)
	return err != nil || n > 0
}

// sameContent compares the file a with the open file fb (of equal size)
// byte by byte.
func sameContent(a string, fb *os.File) (bool, error) {
	fa, err := os.Open(a)
	if err != nil {
		return false, err
	}
	defer fa.Close()
	ba, bb := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		na, ea := io.ReadFull(fa, ba)
		nb, eb := io.ReadFull(fb, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false, nil
		}
		if ea == io.EOF || ea == io.ErrUnexpectedEOF {
			return eb == ea, nil
		}
		if ea != nil {
			return false, ea
		}
		if eb != nil {
			return false, eb
		}
	}
}
