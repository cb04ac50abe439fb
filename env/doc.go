// Package env owns task environments: the local Debian base image
// (debootstrap), task images built from a task's Dockerfile with buildah
// (or docker/podman) and exported to plain rootfs directories, a fresh
// copy-on-write rootfs per run (overlayfs), and the OCI runtime config and
// runc invocations that run a command in it.
//
// The container's root process holds Docker's default capability set
// plus RunConfig.AddCapabilities (for a tree granted more; sandbox-init
// narrows the tree it starts to its own set). Base images of the python
// families are laid out as the official python images (PythonLayout:
// /usr/local/bin/python3, python3.N, pip), and an official image with no
// Debian base here (postgres:15) is built offline from a recipe of its
// own (StandIn).
//
// Following runc's split between specconv and libcontainer, everything
// that turns data into data is a pure function with table-driven tests
// (RuntimeSpec, ResolveFroms, the builder argv functions, MirrorFromSources,
// BaseConfig.Key); the steps that touch the machine (BuildBase, BuildTask,
// NewRootfs, Runc) are small and separate.
//
// Layout of the images directory (default /var/lib/authbench/images):
//
//	base/<key>/rootfs      the debootstrapped base; <key> hashes its config
//	base/<key>/image.json  written last: the base is complete
//	tasks/<name>-<key>/rootfs, image.json   exported task images: the
//	                       base's files (hard links) plus the task's own
//	buildah/overlay/{root,run}  buildah's overlay storage
//	buildah/{root,run}     the vfs storage of earlier versions, unused
//	locks/                 flock files serialising builds of one key
//
// Facts about our hosts that shaped this package:
//
//   - runc (Debian's 1.1.5) runs a bundle as `runc --root /run/authbench/runc
//     run --bundle DIR ID` with plain pivot_root (no --no-pivot: the rootfs is
//     an overlay mount on ext4, not a ramfs) and runc's default cgroup path.
//     On the cgroup v1+v2 hybrid layout it works as long as the config has no
//     /sys/fs/cgroup mount; cpu, memory and pids limits go through the v1
//     hierarchies (every container gets all three: DefaultBounds for what a
//     task leaves unset; HostControllers says which a host can enforce).
//     Rlimits may only be lowered (root lacks CAP_SYS_RESOURCE
//     here), so DefaultRlimits stay at runc's NOFILE 1024. A timed-out run is
//     ended with `runc kill --all ID KILL` and every run with `runc delete
//     --force ID`.
//   - buildah builds with the overlay driver, without a daemon, in storage
//     of its own under the images directory; each RUN step runs in runc in
//     user (root is an unprivileged host id), mount, PID, IPC, UTS and
//     cgroup namespaces of its own, on a network namespace of the build
//     whose only way out is the egress proxy allowing the build hosts
//     (buildconfine.go, buildnet.go; docs/security.md, "Image builds"). The base is
//     imported once (about 40 s); a task build mounts it instead of copying
//     it (vfs copied the whole base for the build, its commit and the
//     export: 15-40 s a task). The export reads the task's layer out of the
//     storage (the lower directories of buildah's own mount of the image) and
//     applies it to a hard-link copy of the base's rootfs, so a task image
//     takes 3-8 s on 2 cores, most of it buildah's RUN steps and start-up.
//     containers/storage keeps its layers under a bind mount of their own,
//     so their files are copied, not linked (links across mounts fail).
//   - debootstrap makes the base (about 550 MB with gcc and python3) in
//     about a minute from the machine's configured mirror.
//   - no public registry is reachable: a FROM resolves through the image
//     map, the builder's storage by exact name only (Builder.LocalImage:
//     buildah's short-name match would return an image pulled earlier from
//     any registry), a registry the config names, asked on every build and
//     used by digest (tested against Debian's docker-registry on loopback),
//     the family bases and the documented offline defaults (ResolveFroms,
//     OfflineDefault), and every image used in place of the one written is
//     a Substitution.
package env
