package env

import (
	"sort"

	"github.com/authbench/authbench/env/imagemeta"
)

// StorageDriver is buildah's storage driver.
type StorageDriver string

// The storage drivers authbench uses. Overlay is the default: a build
// mounts the base's layer instead of copying it, and BuildTask reads the
// task's own layer out of the storage instead of exporting the whole
// rootfs. VFS copies the whole base for each container and layer; it is
// what images directories made before overlay hold (buildah/root).
const (
	Overlay StorageDriver = "overlay"
	VFS     StorageDriver = "vfs"
)

// Builder makes the argv of each image-builder step. Its methods are pure
// functions; BuildTask and ImportBase run them.
type Builder struct {
	Kind imagemeta.BuilderKind
	// Bin is the program, the kind's name (from PATH) when empty.
	Bin string
	// Driver is buildah's storage driver, Overlay when empty (ignored by
	// docker and podman).
	Driver StorageDriver
	// Root and RunRoot are buildah's storage directories (ignored by
	// docker and podman, which use their own).
	Root, RunRoot string
}

// NewBuilder returns the builder of kind using the store's buildah
// storage (overlay).
func NewBuilder(kind imagemeta.BuilderKind, s Store) Builder {
	return Builder{Kind: kind, Driver: Overlay, Root: s.BuilderRoot(Overlay), RunRoot: s.BuilderRunRoot(Overlay)}
}

// driver is b's storage driver, Overlay when unset.
func (b Builder) driver() StorageDriver {
	if b.Driver == "" {
		return Overlay
	}
	return b.Driver
}

func (b Builder) cmd(args ...string) []string {
	bin := b.Bin
	if bin == "" {
		bin = string(b.Kind)
	}
	argv := []string{bin}
	if b.Kind == imagemeta.Buildah {
		argv = append(argv, "--storage-driver", string(b.driver()))
		if b.Root != "" {
			argv = append(argv, "--root", b.Root)
		}
		if b.RunRoot != "" {
			argv = append(argv, "--runroot", b.RunRoot)
		}
	}
	return append(argv, args...)
}

// BuildSpec is one image build.
type BuildSpec struct {
	// Dockerfile is the (rewritten) Dockerfile to build.
	Dockerfile string
	// ContextDir is the build context.
	ContextDir string
	// Tag names the result.
	Tag string
	// BuildArgs are --build-arg values.
	BuildArgs map[string]string
	// Runtime is the OCI runtime of buildah's RUN steps (buildRuntime),
	// NetNS the network namespace they join (a buildNetwork's; required:
	// empty fails the build), Hosts their --add-host entries.
	Runtime, NetNS string
	Hosts          []string
}

// BuildArgv builds spec without ever pulling from a registry; buildah's
// RUN steps are confined (confinedBuildArgs).
func (b Builder) BuildArgv(s BuildSpec) []string {
	var args []string
	switch b.Kind {
	case imagemeta.Buildah:
		args = append([]string{"build"}, confinedBuildArgs(s.Runtime, s.NetNS, s.Hosts)...)
		args = append(args, "--pull=never", "--layers=false")
	case imagemeta.Podman:
		args = []string{"build", "--pull=never"}
	default: // docker never pulls an image it has unless --pull is given
		args = []string{"build"}
	}
	args = append(args, "-f", s.Dockerfile, "-t", s.Tag)
	keys := make([]string, 0, len(s.BuildArgs))
	for k := range s.BuildArgs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		args = append(args, "--build-arg", k+"="+s.BuildArgs[k])
	}
	return b.cmd(append(args, s.ContextDir)...)
}

// ExistsArgv exits 0 when ref is in the builder's local storage.
func (b Builder) ExistsArgv(ref string) []string {
	switch b.Kind {
	case imagemeta.Buildah:
		return b.cmd("inspect", "--type", "image", "--format", "{{.FromImageID}}", ref)
	case imagemeta.Podman:
		return b.cmd("image", "exists", ref)
	}
	return b.cmd("image", "inspect", "--format", "{{.Id}}", ref)
}

// InspectArgv prints ref's image description as JSON.
func (b Builder) InspectArgv(ref string) []string {
	if b.Kind == imagemeta.Buildah {
		return b.cmd("inspect", "--type", "image", ref)
	}
	return b.cmd("image", "inspect", ref)
}

// TagArgv adds the name dst to image src.
func (b Builder) TagArgv(src, dst string) []string { return b.cmd("tag", src, dst) }

// RemoveImageArgv removes the image ref.
func (b Builder) RemoveImageArgv(ref string) []string {
	if b.Kind == imagemeta.Buildah {
		return b.cmd("rmi", ref)
	}
	return b.cmd("image", "rm", ref)
}

// ImportArgv imports a rootfs tar read from stdin as image tag (docker
// and podman; buildah imports with FromScratchArgv, MountArgv, a copy
// and CommitArgv instead).
func (b Builder) ImportArgv(tag string) []string { return b.cmd("import", "-", tag) }

// CreateArgv creates a container of ref (to export or fill its rootfs);
// it prints the container's id.
func (b Builder) CreateArgv(ref string) []string {
	if b.Kind == imagemeta.Buildah {
		return b.cmd("from", "--pull=never", "--quiet", ref)
	}
	return b.cmd("create", ref, "/bin/true")
}

// FromScratchArgv creates an empty buildah working container.
func (b Builder) FromScratchArgv() []string { return b.cmd("from", "--quiet", "scratch") }

// MountArgv prints the host path of a buildah container's rootfs.
func (b Builder) MountArgv(ctr string) []string { return b.cmd("mount", ctr) }

// UnmountArgv releases MountArgv.
func (b Builder) UnmountArgv(ctr string) []string { return b.cmd("umount", ctr) }

// CommitArgv commits a buildah container as image tag.
func (b Builder) CommitArgv(ctr, tag string) []string {
	return b.cmd("commit", "--quiet", "--format", "oci", ctr, tag)
}

// ExportArgv writes a docker/podman container's filesystem as a tar to
// stdout.
func (b Builder) ExportArgv(ctr string) []string { return b.cmd("export", ctr) }

// RemoveContainerArgv removes a container.
func (b Builder) RemoveContainerArgv(ctr string) []string {
	if b.Kind == imagemeta.Buildah {
		return b.cmd("rm", ctr)
	}
	return b.cmd("rm", "-f", ctr)
}
