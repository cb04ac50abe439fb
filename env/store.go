package env

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// DefaultImagesDir is where images live unless --images-dir says otherwise.
const DefaultImagesDir = "/var/lib/authbench/images"

// Store is the images directory.
type Store struct {
	// Dir is the images directory.
	Dir string
}

// metaFile is written last into an image directory: its presence means
// the image is complete.
const metaFile = "image.json"

// BaseDir is the directory of the base image with key.
func (s Store) BaseDir(key string) string { return filepath.Join(s.Dir, "base", key) }

// TaskDir is the directory of a task image.
func (s Store) TaskDir(name, key string) string {
	return filepath.Join(s.Dir, "tasks", name+"-"+key)
}

// BuilderRoot is buildah's storage directory (--root) for driver d. Each
// driver has its own: containers/storage refuses a root made by another
// driver. VFS keeps the place images directories had before overlay.
func (s Store) BuilderRoot(d StorageDriver) string {
	if d == VFS {
		return filepath.Join(s.Dir, "buildah", "root")
	}
	return filepath.Join(s.Dir, "buildah", string(d), "root")
}

// BuilderRunRoot is buildah's state directory (--runroot) for driver d.
func (s Store) BuilderRunRoot(d StorageDriver) string {
	if d == VFS {
		return filepath.Join(s.Dir, "buildah", "run")
	}
	return filepath.Join(s.Dir, "buildah", string(d), "run")
}

// tmpDir is a scratch directory on the same file system as the images,
// so that finished images can be renamed into place.
func (s Store) tmpDir(prefix string) (string, error) {
	base := filepath.Join(s.Dir, "tmp")
	if err := os.MkdirAll(base, 0o700); err != nil {
		return "", err
	}
	return os.MkdirTemp(base, prefix)
}

// lock takes an exclusive lock named name in the store, waiting for other
// builders of the same thing. The returned func releases it.
func (s Store) lock(name string) (func(), error) {
	dir := filepath.Join(s.Dir, "locks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("lock %s: %w", name, err)
	}
	f, err := os.OpenFile(filepath.Join(dir, name+".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", name, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", name, err)
	}
	return func() { f.Close() }, nil
}

// readMeta loads dir/image.json into v; ok is false when it is absent.
func readMeta(dir string, v any) (bool, error) {
	data, err := os.ReadFile(filepath.Join(dir, metaFile))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return false, fmt.Errorf("%s: %w", filepath.Join(dir, metaFile), err)
	}
	return true, nil
}

// writeMeta writes v to dir/image.json atomically.
func writeMeta(dir string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, metaFile+".tmp")
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, metaFile))
}

// install moves a finished image directory from tmp to dst, replacing an
// incomplete leftover at dst.
func install(tmp, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}
