package env

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/authbench/authbench/env/imagemeta"
)

// ParseInspect reads the image config out of `buildah inspect --type
// image` output (an object with OCIv1.config) or `docker/podman image
// inspect` output (an array of objects with Config).
func ParseInspect(kind imagemeta.BuilderKind, data []byte) (imagemeta.ImageConfig, error) {
	type cfg struct {
		Env        []string
		WorkingDir string
		User       string
		Entrypoint []string
		Cmd        []string
	}
	var c cfg
	if kind == imagemeta.Buildah {
		var v struct {
			OCIv1 struct {
				Config cfg `json:"config"`
			} `json:"OCIv1"`
		}
		if err := json.Unmarshal(data, &v); err != nil {
			return imagemeta.ImageConfig{}, fmt.Errorf("parse buildah inspect: %w", err)
		}
		c = v.OCIv1.Config
	} else {
		var v []struct{ Config cfg }
		if err := json.Unmarshal(data, &v); err != nil || len(v) == 0 {
			return imagemeta.ImageConfig{}, fmt.Errorf("parse %s image inspect: %v", kind, err)
		}
		c = v[0].Config
	}
	return imagemeta.ImageConfig{Env: c.Env, WorkingDir: c.WorkingDir, User: c.User, Entrypoint: c.Entrypoint, Cmd: c.Cmd}, nil
}

// Exists reports whether ref is in the builder's local storage.
func (b Builder) Exists(ctx context.Context, ref string) bool {
	argv := b.ExistsArgv(ref)
	return exec.CommandContext(ctx, argv[0], argv[1:]...).Run() == nil
}

// ImportBase makes the base image available to the builder under its
// keyed tag (BaseConfig.Tag) and the names localhost/authbench-base:bookworm
// and :latest (a family base: localhost/authbench-<family>-plain-base:local).
// imported is false when it was there already. Once this process has
// imported and tagged a base, it does not ask the builder again (three
// builder calls per task run otherwise).
func ImportBase(ctx context.Context, s Store, b Builder, img *BaseImage, log io.Writer) (imported bool, err error) {
	tag := img.Config.Tag()
	done := importedBaseKey{s.Dir, b.Kind, img.Key}
	if _, ok := importedBases.Load(done); ok {
		return false, nil
	}
	defer func() {
		if err == nil {
			importedBases.Store(done, true)
		}
	}()
	unlock, err := s.lock("import-" + string(b.Kind) + "-" + img.Key)
	if err != nil {
		return false, fmt.Errorf("import base: %w", err)
	}
	defer unlock()
	if !b.Exists(ctx, tag) {
		noteOldStorage(s, b, log)
		if b.Kind == imagemeta.Buildah {
			err = importBuildah(ctx, b, img.Rootfs, tag, log)
		} else {
			err = importTar(ctx, b, img.Rootfs, tag, log)
		}
		if err != nil {
			return false, fmt.Errorf("import base into %s: %w", b.Kind, err)
		}
		imported = true
	}
	aliases := []string{BaseImageName + ":" + img.Config.Suite, BaseImageName + ":latest"}
	if f, ok := LookupFamily(img.Config.Family); ok {
		aliases = []string{"localhost/" + f.ImageName() + ":local"}
	}
	for _, alias := range aliases {
		if _, err := runTool(ctx, nil, nil, b.TagArgv(tag, alias)...); err != nil {
			return imported, fmt.Errorf("tag base as %s: %w", alias, err)
		}
	}
	return imported, nil
}

// noteOldStorage says, when b imports a base into overlay storage of an
// images directory that still holds the vfs storage of earlier versions,
// that the old storage is no longer used (task images made from it are
// rebuilt: their key changed with the format).
func noteOldStorage(s Store, b Builder, log io.Writer) {
	old := s.BuilderRoot(VFS)
	if log == nil || b.Kind != imagemeta.Buildah || b.driver() == VFS || b.Root == old {
		return
	}
	if _, err := os.Stat(old); err == nil {
		fmt.Fprintf(log, "images dir %s: builds now use buildah's overlay storage in %s; the vfs storage of earlier versions, %s and %s, is no longer used (remove them to free the space)\n",
			s.Dir, filepath.Dir(b.Root), old, s.BuilderRunRoot(VFS))
	}
}

// importedBaseKey names a base imported into a builder's store.
type importedBaseKey struct {
	dir  string
	kind imagemeta.BuilderKind
	key  string
}

// importedBases holds the bases this process imported (or found) and
// tagged.
var importedBases sync.Map

func importBuildah(ctx context.Context, b Builder, rootfs, tag string, log io.Writer) (err error) {
	c, err := newWorkingContainer(ctx, b, b.FromScratchArgv(), log)
	if err != nil {
		return err
	}
	defer c.remove(&err)
	mnt, err := c.mount(ctx)
	if err != nil {
		return err
	}
	_, cpErr := runTool(ctx, log, nil, "cp", "-a", rootfs+"/.", mnt+"/")
	umErr := c.unmount(ctx)
	if cpErr != nil {
		return cpErr
	}
	if umErr != nil {
		return umErr
	}
	_, err = runTool(ctx, log, nil, b.CommitArgv(c.id, tag)...)
	return err
}

// workingContainer is a builder's working container, made from an image
// (Builder.CreateArgv) or from scratch (Builder.FromScratchArgv), and,
// with buildah, its rootfs mounted on the host.
type workingContainer struct {
	b   Builder
	id  string
	mnt string // the mount's host path; "" when not mounted
}

// newWorkingContainer makes a working container with argv, which prints
// its id last; remove must follow.
func newWorkingContainer(ctx context.Context, b Builder, argv []string, log io.Writer) (*workingContainer, error) {
	out, err := runTool(ctx, log, nil, argv...)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return &workingContainer{b: b, id: strings.TrimSpace(lines[len(lines)-1])}, nil
}

// mount mounts the container's rootfs (buildah mount) and returns its
// host path.
func (c *workingContainer) mount(ctx context.Context) (string, error) {
	out, err := runTool(ctx, nil, nil, c.b.MountArgv(c.id)...)
	if err != nil {
		return "", err
	}
	mnt := strings.TrimSpace(out)
	if !filepath.IsAbs(mnt) {
		return "", fmt.Errorf("buildah mount %s printed %q, not a path", c.id, mnt)
	}
	c.mnt = mnt
	return mnt, nil
}

// unmount releases mount (nothing when not mounted).
func (c *workingContainer) unmount(ctx context.Context) error {
	if c.mnt == "" {
		return nil
	}
	if _, err := runTool(ctx, nil, nil, c.b.UnmountArgv(c.id)...); err != nil {
		return err
	}
	c.mnt = ""
	return nil
}

// remove unmounts the container if it is mounted and removes it; *err,
// when nil, becomes the first failure.
func (c *workingContainer) remove(err *error) {
	if umErr := c.unmount(context.Background()); umErr != nil && *err == nil {
		*err = umErr
	}
	if _, rmErr := runTool(context.Background(), nil, nil, c.b.RemoveContainerArgv(c.id)...); rmErr != nil && *err == nil {
		*err = rmErr
	}
}

// importTar pipes `tar -C rootfs -c .` into `docker|podman import - tag`.
func importTar(ctx context.Context, b Builder, rootfs, tag string, log io.Writer) error {
	tar := exec.CommandContext(ctx, "tar", "-C", rootfs, "--numeric-owner", "-c", ".")
	pipe, err := tar.StdoutPipe()
	if err != nil {
		return err
	}
	tar.Stderr = log
	if err := tar.Start(); err != nil {
		return fmt.Errorf("tar: %w", err)
	}
	_, impErr := runTool(ctx, log, pipe, b.ImportArgv(tag)...)
	tarErr := tar.Wait()
	if impErr != nil {
		return impErr
	}
	if tarErr != nil {
		return fmt.Errorf("tar %s: %w", rootfs, tarErr)
	}
	return nil
}

// exportImage writes the root filesystem of image ref into dst (which
// must exist and be empty).
func exportImage(ctx context.Context, b Builder, ref, dst string, log io.Writer) (err error) {
	c, err := newWorkingContainer(ctx, b, b.CreateArgv(ref), log)
	if err != nil {
		return err
	}
	defer c.remove(&err)
	ctr := c.id
	if b.Kind == imagemeta.Buildah {
		mnt, err := c.mount(ctx)
		if err != nil {
			return err
		}
		// Hard links, not copies: the container is removed right after,
		// so the links become the only names of its files. Across file
		// systems (buildah storage elsewhere) fall back to copying.
		_, cpErr := runTool(ctx, log, nil, "cp", "-a", "--link", mnt+"/.", dst+"/")
		if cpErr != nil && ctx.Err() == nil {
			if cpErr = emptyDir(dst); cpErr == nil {
				_, cpErr = runTool(ctx, log, nil, "cp", "-a", mnt+"/.", dst+"/")
			}
		}
		if umErr := c.unmount(ctx); umErr != nil && cpErr == nil {
			return umErr
		}
		if cpErr != nil {
			return cpErr
		}
		if err := unmapBuildIDs(dst); err != nil {
			return err
		}
		return os.Chmod(dst, 0o755)
	}
	exp := exec.CommandContext(ctx, b.ExportArgv(ctr)[0], b.ExportArgv(ctr)[1:]...)
	pipe, err := exp.StdoutPipe()
	if err != nil {
		return err
	}
	exp.Stderr = log
	if err := exp.Start(); err != nil {
		return fmt.Errorf("%s export: %w", b.Kind, err)
	}
	_, tarErr := runTool(ctx, log, pipe, "tar", "-x", "--numeric-owner", "-C", dst)
	if err := exp.Wait(); err != nil {
		return fmt.Errorf("%s export: %w", b.Kind, err)
	}
	if tarErr != nil {
		return tarErr
	}
	return unmapBuildIDs(dst)
}

// emptyDir removes everything inside dir.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// layerDiffIDs reads the layer digests, bottom first, out of `buildah
// inspect --type image` output.
func layerDiffIDs(inspect []byte) ([]string, error) {
	var v struct {
		OCIv1 struct {
			RootFS struct {
				DiffIDs []string `json:"diff_ids"`
			} `json:"rootfs"`
		} `json:"OCIv1"`
	}
	if err := json.Unmarshal(inspect, &v); err != nil {
		return nil, fmt.Errorf("parse buildah inspect: %w", err)
	}
	return v.OCIv1.RootFS.DiffIDs, nil
}

// exportOverBase writes the root filesystem of image ref, built FROM base
// with buildah's overlay storage, into dst (which must exist and be
// empty) without copying the base: dst becomes a hard-link copy of the
// base's rootfs (directories are new, files are the base's), and ref's
// own layers, read out of the storage, are applied on top (applyLayer).
// inspect is ref's `buildah inspect` output. It fails when ref's layers
// do not start with base's or the storage does not show them as overlay
// lower directories; the caller then exports the whole rootfs.
func exportOverBase(ctx context.Context, b Builder, ref string, inspect []byte, base *BaseImage, dst string, log io.Writer) (err error) {
	ids, err := layerDiffIDs(inspect)
	if err != nil {
		return err
	}
	out, err := runTool(ctx, nil, nil, b.InspectArgv(base.Config.Tag())...)
	if err != nil {
		return fmt.Errorf("inspect base: %w", err)
	}
	baseIDs, err := layerDiffIDs([]byte(out))
	if err != nil {
		return err
	}
	if len(baseIDs) == 0 || len(ids) < len(baseIDs) {
		return fmt.Errorf("%s has %d layers, its base %d", ref, len(ids), len(baseIDs))
	}
	for i, id := range baseIDs {
		if ids[i] != id {
			return fmt.Errorf("%s is not built on %s (layer %d differs)", ref, base.Config.Tag(), i)
		}
	}
	c, err := newWorkingContainer(ctx, b, b.CreateArgv(ref), log)
	if err != nil {
		return err
	}
	defer c.remove(&err)
	mnt, err := c.mount(ctx)
	if err != nil {
		return err
	}
	mountinfo, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return err
	}
	lowers, err := OverlayLowers(mountinfo, mnt)
	if err != nil {
		return err
	}
	if len(lowers) != len(ids) {
		return fmt.Errorf("%s has %d layers but its mount %d lower directories", ref, len(ids), len(lowers))
	}
	if _, err := runTool(ctx, log, nil, "cp", "-a", "--link", base.Rootfs+"/.", dst+"/"); err != nil {
		return fmt.Errorf("link the base's files: %w", err)
	}
	for i := len(ids) - len(baseIDs) - 1; i >= 0; i-- { // lowers are topmost first
		layer, err := filepath.EvalSymlinks(lowers[i])
		if err != nil {
			return err
		}
		if err := applyLayer(layer, dst); err != nil {
			return err
		}
	}
	return os.Chmod(dst, 0o755)
}
