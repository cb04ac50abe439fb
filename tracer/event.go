package tracer

// opByCode maps the kernel's enum ab_op (bpf/tracer.h) to Op.
var opByCode = [...]Op{
	1: OpOpen, 2: OpExec, 3: OpMkdir, 4: OpUnlink, 5: OpRmdir, 6: OpRename,
	7: OpLink, 8: OpSymlink, 9: OpTruncate, 10: OpChdir, 11: OpFork, 12: OpExit,
	14: OpURingSetup, 15: OpMmap, 16: OpChown, 17: OpChmod, 18: OpSetxattr, 19: OpMknod,
	20: OpSetid,
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
