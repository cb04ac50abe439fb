package sandbox

// The ioctl requests that change a file's inode flags (chattr's +A, +d,
// +i, …): they work through any descriptor, a read-only one included,
// and Landlock does not restrict them (its ioctl right covers device
// files only). On overlayfs they copy a lower-layer file up first.
const (
	// FSIocSetFlags is FS_IOC_SETFLAGS on 64-bit ABIs.
	FSIocSetFlags = 0x40086602
	// FSIocSetFlags32 is FS_IOC32_SETFLAGS, the same request with an
	// int-sized argument.
	FSIocSetFlags32 = 0x40046602
	// FSIocFSSetXattr is FS_IOC_FSSETXATTR (the extended flags of
	// struct fsxattr).
	FSIocFSSetXattr = 0x401c5820
)

// FileAttrIoctls are the requests above, for seccomp rules on ioctl's
// second argument (compare its low 32 bits only: the kernel ignores the
// rest).
var FileAttrIoctls = []uint32{FSIocSetFlags, FSIocSetFlags32, FSIocFSSetXattr}
