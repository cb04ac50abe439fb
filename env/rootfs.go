package env

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Rootfs is a run's private copy-on-write root filesystem: an overlay of
// an image's rootfs (read-only, shared) and a per-run upper directory.
type Rootfs struct {
	// Dir is the run directory holding upper/, work/ and merged/.
	Dir string
	// Path is the merged root filesystem: the container's /.
	Path string
	// Lower is the image rootfs under the overlay.
	Lower string
	// Setup is how long creating and mounting took.
	Setup   time.Duration
	mounted bool
}

// NewRootfs mounts a fresh overlay of lower under runDir (created; it must
// not exist yet or be empty), nosuid (RootfsMountFlags). On any error nothing stays mounted and
// runDir is removed. Without overlayfs it fails; it never falls back to
// copying.
func NewRootfs(lower, runDir string) (*Rootfs, error) {
	return NewRootfsLayers(lower, nil, runDir)
}

// NewRootfsLayers is NewRootfs with extra read-only layers above the
// image rootfs lower (topmost first): an installed agent's harness.
// Rootfs.Lower stays the image rootfs.
func NewRootfsLayers(lower string, extra []string, runDir string) (*Rootfs, error) {
	start := time.Now()
	for _, l := range append([]string{lower}, extra...) {
		if st, err := os.Stat(l); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("new rootfs: image rootfs %s: %w", l, statErr(err))
		}
	}
	if err := os.MkdirAll(runDir, 0o700); err != nil {
		return nil, fmt.Errorf("new rootfs: %w", err)
	}
	r := rootfsIn(runDir)
	r.Lower = lower
	upper, work := r.Upper(), filepath.Join(runDir, "work")
	for _, d := range []string{upper, work, r.Path} {
		if err := os.Mkdir(d, 0o755); err != nil {
			os.RemoveAll(runDir)
			return nil, fmt.Errorf("new rootfs: %w", err)
		}
	}
	opts := OverlayOptions(lower, upper, work, extra...)
	if err := unix.Mount("overlay", r.Path, "overlay", unix.MS_NOSUID, opts); err != nil {
		os.RemoveAll(runDir)
		if errors.Is(err, unix.ENODEV) {
			return nil, fmt.Errorf("new rootfs: overlayfs is not available on this kernel (modprobe overlay?): %w", err)
		}
		return nil, fmt.Errorf("new rootfs: mount overlay on %s: %w", r.Path, err)
	}
	r.mounted = true
	// The merged root must be traversable by the run's unprivileged user.
	if err := os.Chmod(r.Path, 0o755); err != nil {
		r.Close()
		return nil, fmt.Errorf("new rootfs: %w", err)
	}
	r.Setup = time.Since(start)
	return r, nil
}

// OverlayOptions is the overlay mount data for the lower directory
// lower and, above it (topmost first), the layers above.
func OverlayOptions(lower, upper, work string, above ...string) string {
	esc := func(p string) string { return strings.NewReplacer(`\`, `\\`, `,`, `\,`, `:`, `\:`).Replace(p) }
	lowers := ""
	for _, a := range above {
		lowers += esc(a) + ":"
	}
	return "lowerdir=" + lowers + esc(lower) + ",upperdir=" + esc(upper) + ",workdir=" + esc(work)
}

// Upper is the directory that holds what the run changed.
func (r *Rootfs) Upper() string { return filepath.Join(r.Dir, "upper") }

// RemoveRootfs unmounts and removes the rootfs that NewRootfs made in
// runDir when nobody closed it (its process was killed); a rootfs that is
// not mounted, or a runDir that does not exist, is fine.
func RemoveRootfs(runDir string) error {
	r := rootfsIn(runDir)
	r.mounted = true
	return r.Close()
}

// rootfsIn is the layout of a rootfs in runDir: the overlay is mounted on
// merged, over upper and work.
func rootfsIn(runDir string) *Rootfs {
	return &Rootfs{Dir: runDir, Path: filepath.Join(runDir, "merged")}
}

// Close unmounts the overlay (lazily if it is still busy) and removes the
// run directory. It is safe to call more than once.
func (r *Rootfs) Close() error {
	var errs []error
	if r.mounted {
		if err := unmount(r.Path); err != nil {
			errs = append(errs, err)
		} else {
			r.mounted = false
		}
	}
	if !r.mounted {
		if err := os.RemoveAll(r.Dir); err != nil {
			errs = append(errs, fmt.Errorf("remove run dir: %w", err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close rootfs %s: %w", r.Dir, err)
	}
	return nil
}

// unmount unmounts target, retrying briefly while busy and detaching it
// as a last resort, so that nothing stays mounted.
func unmount(target string) error {
	var err error
	for i := 0; i < 5; i++ {
		err = unix.Unmount(target, 0)
		if err == nil || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOENT) {
			return nil
		}
		if !errors.Is(err, unix.EBUSY) {
			break
		}
		time.Sleep(time.Duration(20*(i+1)) * time.Millisecond)
	}
	if derr := unix.Unmount(target, unix.MNT_DETACH); derr != nil {
		return fmt.Errorf("unmount %s: %w (detach: %v)", target, err, derr)
	}
	return nil
}

func statErr(err error) error {
	if err == nil {
		return errors.New("not a directory")
	}
	return err
}
