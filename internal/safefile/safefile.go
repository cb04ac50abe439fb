// Package safefile creates the files a privileged CLI writes at paths
// its user names, in directories other users may write to (/tmp): a
// symbolic link planted at the path is never followed, and a regular
// file is never written through an existing inode. The data goes to a
// new file (O_EXCL) beside the target and is renamed over it on Commit,
// so the target is also never seen half-written.
//
// A Dir is a whole directory of such files (a bench's out dir): opened
// only when no other user controls it or a directory above it, and every
// file under it reached from its descriptor without following a link.
//
// A Dir is also the root of the host's reads of what a task, an agent or
// a service placed (a run's upper layer, its rootfs after the verifier, a
// compose volume; beneath.go): only regular files are read, decided
// before they are opened for reading, so a FIFO never blocks the reader.
package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrSymlink: the target is a symbolic link, which is not followed.
var ErrSymlink = errors.New("is a symbolic link (not followed; remove it or choose another path)")

// File is a file being written for a target path.
type File struct {
	*os.File
	target string
	temp   string // "" when writing to the target itself (a device or fifo)
	done   bool
}

// Create starts writing the file path with mode perm. An existing
// regular file at path is replaced on Commit; a character device or a
// fifo (/dev/null) is written to directly; a symbolic link or anything
// else is refused.
func Create(path string, perm fs.FileMode) (*File, error) {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	case st.Mode()&fs.ModeSymlink != 0:
		return nil, fmt.Errorf("%s %w", path, ErrSymlink)
	case st.Mode()&(fs.ModeCharDevice|fs.ModeNamedPipe) != 0:
		f, err := os.OpenFile(path, os.O_WRONLY|noFollow, 0)
		if err != nil {
			return nil, err
		}
		return &File{File: f, target: path}, nil
	case !st.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*") // O_CREAT|O_EXCL, mode 0600
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &File{File: f, target: path, temp: f.Name()}, nil
}

// Name is the target path.
func (f *File) Name() string { return f.target }

// Commit closes the file and puts it in place of the target.
func (f *File) Commit() error {
	if f.done {
		return nil
	}
	f.done = true
	err := f.File.Close()
	if f.temp == "" {
		return err
	}
	if err == nil {
		err = os.Rename(f.temp, f.target)
	}
	if err != nil {
		os.Remove(f.temp)
		return fmt.Errorf("write %s: %w", f.target, err)
	}
	return nil
}

// Abort closes the file and leaves the target as it was; after Commit it
// does nothing, so it can be deferred.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.File.Close()
	if f.temp != "" {
		os.Remove(f.temp)
	}
}

// WriteFile writes data to path as Create and Commit do.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	f, err := Create(path, perm)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Commit()
}
