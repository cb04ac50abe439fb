package taskrun

import (
	"slices"

	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/sandbox"
)

// metadataSyscalls change a file's mode, owner, times or extended
// attributes: Landlock does not restrict them, so a generator could change
// the files it may read. The generation filter makes them fail with EPERM.
var metadataSyscalls = []string{
	"chmod", "fchmod", "fchmodat", "fchmodat2",
	"chown", "fchown", "lchown", "fchownat",
	"utime", "utimes", "utimensat", "futimesat",
	"setxattr", "lsetxattr", "fsetxattr", "setxattrat",
	"removexattr", "lremovexattr", "fremovexattr", "removexattrat",
}

// GenerationProfile is the default seccomp profile with the metadata
// syscalls (chmod, chown, utimes, xattr changes) failing with EPERM.
func GenerationProfile() *sandbox.Profile {
	p := sandbox.DefaultProfile()
	for i := range p.Syscalls {
		r := &p.Syscalls[i]
		r.Names = slices.DeleteFunc(slices.Clone(r.Names), func(n string) bool { return slices.Contains(metadataSyscalls, n) })
		if r.Name != "" && slices.Contains(metadataSyscalls, r.Name) {
			r.Name = ""
		}
	}
	p.Syscalls = slices.DeleteFunc(p.Syscalls, func(r sandbox.SyscallRule) bool { return len(r.Names) == 0 && r.Name == "" })
	eperm := uint(unix.EPERM)
	p.Syscalls = append(p.Syscalls, sandbox.SyscallRule{
		Names: metadataSyscalls, Action: "SCMP_ACT_ERRNO", ErrnoRet: &eperm,
		Comment: "permission generation: the environment's metadata stays as it is",
	})
	p.Source = "generation"
	return p
}

// GenerationFilter is GenerationProfile compiled for this machine.
func GenerationFilter() (*sandbox.Filter, error) {
	return sandbox.CompileProfile(GenerationProfile(), sandbox.CompileOptions{})
}
