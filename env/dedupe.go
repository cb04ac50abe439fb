package env

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// dedupe replaces each regular file of rootfs that is identical to the
// file at the same path in base (content, mode, owner, mtime, no xattrs)
// by a hard link to it, so that task images share the base's files on
// disk. Both trees are only ever read afterwards (runs write to overlay
// upper directories), so sharing inodes is safe. It returns the bytes
// shared with the base, counting files that are its already; a file it
// cannot compare is left alone.
func dedupe(base, rootfs string) (int64, error) {
	var saved int64
	err := filepath.WalkDir(rootfs, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(rootfs, p)
		bp := filepath.Join(base, rel)
		var st, bst unix.Stat_t
		if unix.Lstat(p, &st) != nil || unix.Lstat(bp, &bst) != nil {
			return nil
		}
		if st.Ino == bst.Ino && st.Dev == bst.Dev {
			saved += st.Size // linked already (exportOverBase)
			return nil
		}
		if !sameMeta(&st, &bst) || hasXattrs(p) || hasXattrs(bp) {
			return nil
		}
		if same, err := sameContent(p, bp); err != nil || !same {
			return nil
		}
		tmp := p + ".authbench-link"
		if err := os.Link(bp, tmp); err != nil {
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

// sameContent compares two files of equal size byte by byte.
func sameContent(a, b string) (bool, error) {
	fa, err := os.Open(a)
	if err != nil {
		return false, err
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return false, err
	}
	defer fb.Close()
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
