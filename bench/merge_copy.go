package bench

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"

	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/internal/safefile"
)

// copyTree copies the directory rel of src to rel of dst, following no
// link: regular files and directories are copied (permission bits
// only), anything else is left out and named in skipped. A FIFO planted
// in place of a file is never opened for blocking reads.
func copyTree(src, dst *safefile.Dir, rel string) (skipped []string, err error) {
	d, err := src.OpenFile(rel, os.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	entries, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", src.Join(rel), err)
	}
	if err := dst.MkdirAll(rel); err != nil {
		return nil, err
	}
	for _, e := range entries {
		name := path.Join(rel, e.Name())
		switch e.Type() {
		case fs.ModeDir:
			more, err := copyTree(src, dst, name)
			if err != nil {
				return nil, err
			}
			skipped = append(skipped, more...)
		case 0:
			ok, err := copyFile(src, dst, name)
			if err != nil {
				return nil, err
			}
			if !ok {
				skipped = append(skipped, src.Join(name))
			}
		default:
			skipped = append(skipped, src.Join(name))
		}
	}
	return skipped, nil
}

// copyFile copies the regular file rel; false when rel is not (any
// more) a regular file.
func copyFile(src, dst *safefile.Dir, rel string) (bool, error) {
	in, err := src.OpenFile(rel, os.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	if err != nil {
		return false, err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return false, err
	}
	if !st.Mode().IsRegular() {
		return false, nil
	}
	out, err := dst.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, st.Mode().Perm())
	if err != nil {
		return false, err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return false, fmt.Errorf("copy %s: %w", src.Join(rel), err)
	}
	return true, out.Close()
}
