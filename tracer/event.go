package tracer

import "github.com/authbench/authbench/tracer/trace"

// opByCode maps the kernel's enum ab_op (bpf/tracer.h) to Op.
var opByCode = [...]trace.Op{
	1: trace.OpOpen, 2: trace.OpExec, 3: trace.OpMkdir, 4: trace.OpUnlink, 5: trace.OpRmdir, 6: trace.OpRename,
	7: trace.OpLink, 8: trace.OpSymlink, 9: trace.OpTruncate, 10: trace.OpChdir, 11: trace.OpFork, 12: trace.OpExit,
	14: trace.OpURingSetup, 15: trace.OpMmap, 16: trace.OpChown, 17: trace.OpChmod, 18: trace.OpSetxattr, 19: trace.OpMknod,
	20: trace.OpSetid,
}

// syscallByCode names the kernel's enum ab_sys (bpf/syscalls.h), in its
// order; TestSyscallNames pins it to the C enum.
var syscallByCode = [...]string{
	"", "open", "openat", "openat2", "creat", "execve", "execveat", "mkdir", "mkdirat",
	"unlink", "unlinkat", "rmdir", "rename", "renameat", "renameat2", "link", "linkat",
	"symlink", "symlinkat", "truncate", "ftruncate", "chdir", "fchdir",
	"open_by_handle_at", "io_uring_setup", "mmap", "mprotect", "pkey_mprotect",
	"chown", "fchown", "lchown", "fchownat", "chmod", "fchmod", "fchmodat", "fchmodat2",
	"setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr",
	"setxattrat", "removexattrat", "mknod", "mknodat", "setuid", "setgid", "setreuid",
	"setregid", "setresuid", "setresgid", "setgroups", "setfsuid", "setfsgid",
}
