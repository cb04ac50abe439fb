package explore

import (
	"slices"

	specs "github.com/opencontainers/runtime-spec/specs-go"
	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/sandbox"
)

// metadataSyscalls change a file's mode, owner, times, extended
// attributes or inode flags: Landlock does not restrict them, so a
// generator could change the files it may read. The generation filter
// makes them fail with EPERM.
var metadataSyscalls = []string{
	"chmod", "fchmod", "fchmodat", "fchmodat2",
	"chown", "fchown", "lchown", "fchownat",
	"utime", "utimes", "utimensat", "futimesat",
	"setxattr", "lsetxattr", "fsetxattr", "setxattrat",
	"removexattr", "lremovexattr", "fremovexattr", "removexattrat",
	"file_setattr",
}

// GenerationProfile is the default seccomp profile with the metadata
// changes Landlock does not restrict failing with EPERM: the metadata
// syscalls (chmod, chown, utimes, xattr changes, file_setattr) and the
// inode-flag ioctls (chattr: FS_IOC_SETFLAGS, FS_IOC_FSSETXATTR), which
// work through a read-only descriptor. The default profile's rules stay,
// among them the refusal of read-only opens with O_TRUNC.
func GenerationProfile() *sandbox.Profile {
	p := sandbox.DefaultProfile()
	p.DropNames(func(_ sandbox.SyscallRule, n string) bool { return slices.Contains(metadataSyscalls, n) })
	eperm := uint(unix.EPERM)
	p.Syscalls = append(p.Syscalls, sandbox.SyscallRule{
		Names: metadataSyscalls, Action: specs.ActErrno, ErrnoRet: &eperm,
		Comment: "permission generation: the environment's metadata stays as it is",
	})
	for _, req := range sandbox.FileAttrIoctls {
		p.Syscalls = append(p.Syscalls, sandbox.SyscallRule{
			Names: []string{"ioctl"}, Action: specs.ActErrno, ErrnoRet: &eperm,
			Args:    []specs.LinuxSeccompArg{{Index: 1, Op: specs.OpMaskedEqual, Value: 0xffffffff, ValueTwo: uint64(req)}},
			Comment: "permission generation: inode flags (chattr) stay as they are",
		})
	}
	p.Source = "generation"
	return p
}

// GenerationFilter is GenerationProfile compiled for this machine.
func GenerationFilter() (*sandbox.Filter, error) {
	return sandbox.CompileProfile(GenerationProfile(), sandbox.CompileOptions{})
}
