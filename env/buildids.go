package env

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// A confined RUN step (buildconfine.go) writes its files as the host ids
// of its user namespace, and containers/storage keeps them so in the
// step's layer: root's file in the step is BuildHostID's on disk. An
// image's rootfs holds the ids the step saw (what an unconfined build
// writes), so every export maps them back (imageID, imageCapability)
// before a run sees them: git refuses a repository that root does not
// own, and chown-based tasks read their owners.

// imageID is the image's id of id as the storage holds it: an id of the
// build's user namespace range (BuildHostID..) is the step's own
// (0..BuildIDCount-1); any other id (the base's files, a pulled image's)
// is unchanged.
func imageID(id uint32) uint32 {
	if id >= BuildHostID && id-BuildHostID < BuildIDCount {
		return id - BuildHostID
	}
	return id
}

// capabilityXattr is the extended attribute of file capabilities.
const capabilityXattr = "security.capability"

// File capability revisions (linux/capability.h): v2 applies in every
// user namespace, v3 only in those whose root is its rootid.
const (
	vfsCapRevision2 = 0x02000000
	vfsCapRevision3 = 0x03000000
	vfsCapRevMask   = 0xFF000000
	vfsCapV2Size    = 20
	vfsCapV3Size    = 24
)

// imageCapability is the image's value of a security.capability
// attribute as the storage holds it. A step's `setcap` writes a v3
// attribute whose rootid is the host id of the step's root
// (BuildHostID), which no run's root is; the image gets the v2 attribute
// an unconfined build writes. Other values are unchanged.
func imageCapability(v []byte) []byte {
	if len(v) != vfsCapV3Size {
		return v
	}
	magic := binary.LittleEndian.Uint32(v[0:4])
	if magic&vfsCapRevMask != vfsCapRevision3 || binary.LittleEndian.Uint32(v[20:24]) != BuildHostID {
		return v
	}
	out := make([]byte, vfsCapV2Size)
	copy(out, v[:vfsCapV2Size])
	binary.LittleEndian.PutUint32(out[0:4], magic&^vfsCapRevMask|vfsCapRevision2)
	return out
}

// imageXattr is the image's value of attribute name as the storage holds
// it (imageCapability for file capabilities).
func imageXattr(name string, v []byte) []byte {
	if name == capabilityXattr {
		return imageCapability(v)
	}
	return v
}

// unmapBuildIDs gives every entry below root (not following links) the
// image's owner and file capabilities (imageID, imageCapability), for an
// export that copied the storage's files as they are. chown clears the
// set-ID bits and file capabilities, so both are set again.
func unmapBuildIDs(root string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			return err
		}
		uid, gid := imageID(st.Uid), imageID(st.Gid)
		if uid == st.Uid && gid == st.Gid {
			return nil
		}
		if err := restoreOwner(p, &st, uid, gid); err != nil {
			return fmt.Errorf("image owner of %s: %w", p, err)
		}
		return nil
	})
}

// restoreOwner sets p's owner to uid:gid and keeps what chown drops:
// the mode's set-ID bits and the file capabilities (as the image's).
func restoreOwner(p string, st *unix.Stat_t, uid, gid uint32) error {
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return unix.Lchown(p, int(uid), int(gid))
	}
	caps, err := getXattr(p, capabilityXattr)
	if err != nil && !errors.Is(err, unix.ENODATA) && !errors.Is(err, unix.ENOTSUP) {
		return err
	}
	if err := unix.Lchown(p, int(uid), int(gid)); err != nil {
		return err
	}
	if err := unix.Chmod(p, st.Mode&07777); err != nil {
		return err
	}
	if len(caps) > 0 {
		return unix.Lsetxattr(p, capabilityXattr, imageCapability(caps), 0)
	}
	return nil
}
