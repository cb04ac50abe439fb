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
)

// ImageConfig is the part of an image's config that a run needs.
type ImageConfig struct {
	Env        []string `json:"env,omitempty"`
	WorkingDir string   `json:"working_dir,omitempty"`
	User       string   `json:"user,omitempty"`
	Entrypoint []string `json:"entrypoint,omitempty"`
	Cmd        []string `json:"cmd,omitempty"`
}

// ParseInspect reads the image config out of `buildah inspect --type
// image` output (an object with OCIv1.config) or `docker/podman image
// inspect` output (an array of objects with Config).
func ParseInspect(kind BuilderKind, data []byte) (ImageConfig, error) {
	type cfg struct {
		Env        []string
		WorkingDir string
		User       string
		Entrypoint []string
		Cmd        []string
	}
	var c cfg
	if kind == Buildah {
		var v struct {
			OCIv1 struct {
				Config cfg `json:"config"`
			} `json:"OCIv1"`
		}
		if err := json.Unmarshal(data, &v); err != nil {
			return ImageConfig{}, fmt.Errorf("parse buildah inspect: %w", err)
		}
		c = v.OCIv1.Config
	} else {
		var v []struct{ Config cfg }
		if err := json.Unmarshal(data, &v); err != nil || len(v) == 0 {
			return ImageConfig{}, fmt.Errorf("parse %s image inspect: %v", kind, err)
		}
		c = v[0].Config
	}
	return ImageConfig{Env: c.Env, WorkingDir: c.WorkingDir, User: c.User, Entrypoint: c.Entrypoint, Cmd: c.Cmd}, nil
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
		if b.Kind == Buildah {
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

// importedBaseKey names a base imported into a builder's store.
type importedBaseKey struct {
	dir  string
	kind BuilderKind
	key  string
}

// importedBases holds the bases this process imported (or found) and
// tagged.
var importedBases sync.Map

func importBuildah(ctx context.Context, b Builder, rootfs, tag string, log io.Writer) (err error) {
	out, err := runTool(ctx, log, nil, b.FromScratchArgv()...)
	if err != nil {
		return err
	}
	ctr := strings.TrimSpace(out)
	defer func() {
		if _, rmErr := runTool(context.Background(), nil, nil, b.RemoveContainerArgv(ctr)...); rmErr != nil && err == nil {
			err = rmErr
		}
	}()
	mnt, err := mountContainer(ctx, b, ctr)
	if err != nil {
		return err
	}
	_, cpErr := runTool(ctx, log, nil, "cp", "-a", rootfs+"/.", mnt+"/")
	_, umErr := runTool(ctx, nil, nil, b.UnmountArgv(ctr)...)
	if cpErr != nil {
		return cpErr
	}
	if umErr != nil {
		return umErr
	}
	_, err = runTool(ctx, log, nil, b.CommitArgv(ctr, tag)...)
	return err
}

func mountContainer(ctx context.Context, b Builder, ctr string) (string, error) {
	out, err := runTool(ctx, nil, nil, b.MountArgv(ctr)...)
	if err != nil {
		return "", err
	}
	mnt := strings.TrimSpace(out)
	if !filepath.IsAbs(mnt) {
		return "", fmt.Errorf("buildah mount %s printed %q, not a path", ctr, mnt)
	}
	return mnt, nil
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
	out, err := runTool(ctx, log, nil, b.CreateArgv(ref)...)
	if err != nil {
		return err
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	ctr := strings.TrimSpace(lines[len(lines)-1])
	defer func() {
		if _, rmErr := runTool(context.Background(), nil, nil, b.RemoveContainerArgv(ctr)...); rmErr != nil && err == nil {
			err = rmErr
		}
	}()
	if b.Kind == Buildah {
		mnt, err := mountContainer(ctx, b, ctr)
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
		if _, umErr := runTool(ctx, nil, nil, b.UnmountArgv(ctr)...); umErr != nil && cpErr == nil {
			return umErr
		}
		if cpErr != nil {
			return cpErr
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
	return tarErr
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
