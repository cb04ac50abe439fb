/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a traced syscall's arguments mean (enum ab_sys -> operation, path
 * pointers, flags), and the base directories its relative paths are
 * resolved against. Everything is read at sys_exit: the user register
 * frame still holds the arguments, and a path's base directory is looked
 * up only when the path turns out to be relative.
 */
#ifndef AB_CALL_H
#define AB_CALL_H

#define AB_AT_FDCWD -100
#define AB_AT_REMOVEDIR 0x200
#define AB_O_CREAT_WR_TRUNC 01101 /* O_CREAT|O_WRONLY|O_TRUNC: what creat means */
#define AB_PROT_EXEC 0x4
#define AB_MAP_ANONYMOUS 0x20 /* the same on x86 and arm64 */

enum ab_kind {
	AB_KIND_PATH = 0,   /* path string(s) relative to base directories */
	AB_KIND_FD = 1,     /* path 1 is the file of a descriptor (fchdir, ftruncate) */
	AB_KIND_HOW = 2,    /* openat2: ptr2 is struct open_how */
	AB_KIND_NONE = 3,   /* no path: io_uring_setup, open_by_handle_at, set*id, mmap */
};

/* One decoded syscall. */
struct ab_call {
	__u64 session;
	__u64 ptr1;   /* user pointer of path 1 */
	__u64 ptr2;   /* user pointer of path 2 (openat2: struct open_how) */
	__u64 dent1;  /* base directory of path 1: dentry, vfsmount (see based) */
	__u64 mnt1;
	__u64 dent2;  /* base directory of path 2 */
	__u64 mnt2;
	__u64 rootd;  /* the task's root: dentry, vfsmount */
	__u64 rootm;
	__u64 flags;
	__u64 vaddr;  /* mmap/mprotect: an address in the mapping (0: use dfd1's file) */
	__u8 op;
	__u8 sys;     /* canonical syscall (enum ab_sys) */
	__u16 info;
	__u8 kind;    /* enum ab_kind */
	__u8 based;   /* dent/mnt/root fields are set */
	__u8 self;    /* a relative path 1 names its base itself (chdir that succeeded) */
	__s32 dfd1;   /* directory descriptors of the paths */
	__s32 dfd2;
};

/* ab_fd_file returns the file of descriptor fd of task, NULL if none. */
static __always_inline struct file *ab_fd_file(struct task_struct *task, long fd)
{
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file *f = NULL;
	if (fd < 0 || (unsigned long)fd >= BPF_CORE_READ(fdt, max_fds))
		return NULL;
	struct file **fds = BPF_CORE_READ(fdt, fd);
	bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]);
	return f;
}

/* ab_base stores the directory that a path argument is relative to:
 * the cwd for AT_FDCWD, else the file of descriptor dfd. */
static __always_inline void ab_base(struct task_struct *task, int dfd, __u64 *dent, __u64 *mnt)
{
	if (dfd == AB_AT_FDCWD) {
		struct fs_struct *fs = BPF_CORE_READ(task, fs);
		*dent = (__u64)BPF_CORE_READ(fs, pwd.dentry);
		*mnt = (__u64)BPF_CORE_READ(fs, pwd.mnt);
		return;
	}
	struct file *f = ab_fd_file(task, dfd);
	if (!f)
		return;
	*dent = (__u64)BPF_CORE_READ(f, f_path.dentry);
	*mnt = (__u64)BPF_CORE_READ(f, f_path.mnt);
}

/* ab_resolve records the base directories of the call's paths and the
 * task's root, as they are now. */
static __always_inline void ab_resolve(struct task_struct *task, struct ab_call *c)
{
	ab_base(task, c->dfd1, &c->dent1, &c->mnt1);
	if (c->ptr2 && !(c->info & AB_INFO_RAW2))
		ab_base(task, c->dfd2, &c->dent2, &c->mnt2);
	struct fs_struct *fs = BPF_CORE_READ(task, fs);
	c->rootd = (__u64)BPF_CORE_READ(fs, root.dentry);
	c->rootm = (__u64)BPF_CORE_READ(fs, root.mnt);
	c->based = 1;
}

/* ab_fill_call decodes the arguments of syscall sys, which returned ret,
 * into c; it returns 0 for a syscall that is not traced (and for mmap and
 * mprotect without PROT_EXEC or of anonymous memory). */
static __always_inline int ab_fill_call(int sys, __u64 a[5], long ret, struct ab_call *c)
{
	int dfd1 = AB_AT_FDCWD, dfd2 = AB_AT_FDCWD, two = 0;

	c->sys = sys;
	switch (sys) {
	case AB_SYS_OPEN:
		c->op = AB_OP_OPEN, c->ptr1 = a[0], c->flags = a[1];
		c->info = AB_INFO_FLAGS;
		break;
	case AB_SYS_OPENAT:
		c->op = AB_OP_OPEN, dfd1 = a[0], c->ptr1 = a[1], c->flags = a[2];
		c->info = AB_INFO_FLAGS;
		break;
	case AB_SYS_OPENAT2:
		c->op = AB_OP_OPEN, dfd1 = a[0], c->ptr1 = a[1], c->ptr2 = a[2];
		c->kind = AB_KIND_HOW, c->info = AB_INFO_FLAGS;
		break;
	case AB_SYS_CREAT:
		c->op = AB_OP_OPEN, c->ptr1 = a[0], c->flags = AB_O_CREAT_WR_TRUNC;
		c->info = AB_INFO_FLAGS;
		break;
	case AB_SYS_OPEN_BY_HANDLE: /* no name: the real path says what was opened */
		c->op = AB_OP_OPEN, c->flags = a[2], c->kind = AB_KIND_NONE;
		c->info = AB_INFO_FLAGS | AB_INFO_NONAME;
		break;
	case AB_SYS_URING_SETUP:
		c->op = AB_OP_URING_SETUP, c->kind = AB_KIND_NONE;
		c->info = AB_INFO_NONAME;
		break;
	case AB_SYS_EXECVE:
		c->op = AB_OP_EXEC, c->ptr1 = a[0];
		break;
	case AB_SYS_EXECVEAT:
		c->op = AB_OP_EXEC, dfd1 = a[0], c->ptr1 = a[1];
		break;
	case AB_SYS_MKDIR:
		c->op = AB_OP_MKDIR, c->ptr1 = a[0];
		break;
	case AB_SYS_MKDIRAT:
		c->op = AB_OP_MKDIR, dfd1 = a[0], c->ptr1 = a[1];
		break;
	case AB_SYS_UNLINK:
		c->op = AB_OP_UNLINK, c->ptr1 = a[0];
		break;
	case AB_SYS_UNLINKAT:
		c->op = (a[2] & AB_AT_REMOVEDIR) ? AB_OP_RMDIR : AB_OP_UNLINK;
		dfd1 = a[0], c->ptr1 = a[1];
		break;
	case AB_SYS_RMDIR:
		c->op = AB_OP_RMDIR, c->ptr1 = a[0];
		break;
	case AB_SYS_RENAME:
	case AB_SYS_LINK:
		c->op = sys == AB_SYS_RENAME ? AB_OP_RENAME : AB_OP_LINK;
		c->ptr1 = a[0], c->ptr2 = a[1], two = 1;
		break;
	case AB_SYS_RENAMEAT:
	case AB_SYS_RENAMEAT2:
	case AB_SYS_LINKAT:
		c->op = sys == AB_SYS_LINKAT ? AB_OP_LINK : AB_OP_RENAME;
		dfd1 = a[0], c->ptr1 = a[1], dfd2 = a[2], c->ptr2 = a[3], two = 1;
		break;
	case AB_SYS_SYMLINK: /* path 1: the new link; path 2: its target as given */
		c->op = AB_OP_SYMLINK, c->ptr1 = a[1], c->ptr2 = a[0];
		c->info = AB_INFO_RAW2;
		break;
	case AB_SYS_SYMLINKAT:
		c->op = AB_OP_SYMLINK, dfd1 = a[1], c->ptr1 = a[2], c->ptr2 = a[0];
		c->info = AB_INFO_RAW2;
		break;
	case AB_SYS_TRUNCATE:
		c->op = AB_OP_TRUNCATE, c->ptr1 = a[0];
		break;
	case AB_SYS_FTRUNCATE:
		c->op = AB_OP_TRUNCATE, dfd1 = a[0], c->kind = AB_KIND_FD;
		break;
	case AB_SYS_CHDIR:
		c->op = AB_OP_CHDIR, c->ptr1 = a[0];
		break;
	case AB_SYS_FCHDIR:
		c->op = AB_OP_CHDIR, dfd1 = a[0], c->kind = AB_KIND_FD;
		break;
	case AB_SYS_MMAP: /* the mapping made, or the descriptor's file if none */
		if (!(a[2] & AB_PROT_EXEC) || (a[3] & AB_MAP_ANONYMOUS))
			return 0;
		c->op = AB_OP_MMAP, c->flags = a[2], c->kind = AB_KIND_NONE;
		c->info = AB_INFO_FLAGS | AB_INFO_NONAME;
		c->vaddr = ret >= 0 ? ret : 0, dfd1 = a[4];
		break;
	case AB_SYS_MPROTECT:
	case AB_SYS_PKEY_MPROTECT: /* the mapping at the start address */
		if (!(a[2] & AB_PROT_EXEC) || !a[0])
			return 0;
		c->op = AB_OP_MMAP, c->flags = a[2], c->kind = AB_KIND_NONE;
		c->info = AB_INFO_FLAGS | AB_INFO_NONAME;
		c->vaddr = a[0], dfd1 = -1;
		break;
	case AB_SYS_CHOWN:
	case AB_SYS_LCHOWN:
		c->op = AB_OP_CHOWN, c->ptr1 = a[0];
		break;
	case AB_SYS_CHMOD:
		c->op = AB_OP_CHMOD, c->ptr1 = a[0];
		break;
	case AB_SYS_SETXATTR:
	case AB_SYS_LSETXATTR:
	case AB_SYS_REMOVEXATTR:
	case AB_SYS_LREMOVEXATTR:
		c->op = AB_OP_SETXATTR, c->ptr1 = a[0];
		break;
	case AB_SYS_MKNOD:
		c->op = AB_OP_MKNOD, c->ptr1 = a[0];
		break;
	case AB_SYS_FCHOWNAT:
		c->op = AB_OP_CHOWN, dfd1 = a[0], c->ptr1 = a[1];
		break;
	case AB_SYS_FCHMODAT:
	case AB_SYS_FCHMODAT2:
		c->op = AB_OP_CHMOD, dfd1 = a[0], c->ptr1 = a[1];
		break;
	case AB_SYS_SETXATTRAT:
	case AB_SYS_REMOVEXATTRAT:
		c->op = AB_OP_SETXATTR, dfd1 = a[0], c->ptr1 = a[1];
		break;
	case AB_SYS_MKNODAT:
		c->op = AB_OP_MKNOD, dfd1 = a[0], c->ptr1 = a[1];
		break;
	case AB_SYS_FCHOWN: /* path 1 is the descriptor's file */
		c->op = AB_OP_CHOWN, dfd1 = a[0], c->kind = AB_KIND_FD;
		break;
	case AB_SYS_FCHMOD:
		c->op = AB_OP_CHMOD, dfd1 = a[0], c->kind = AB_KIND_FD;
		break;
	case AB_SYS_FSETXATTR:
	case AB_SYS_FREMOVEXATTR:
		c->op = AB_OP_SETXATTR, dfd1 = a[0], c->kind = AB_KIND_FD;
		break;
	case AB_SYS_SETUID:
	case AB_SYS_SETGID:
	case AB_SYS_SETREUID:
	case AB_SYS_SETREGID:
	case AB_SYS_SETRESUID:
	case AB_SYS_SETRESGID:
	case AB_SYS_SETGROUPS:
	case AB_SYS_SETFSUID:
	case AB_SYS_SETFSGID:
		c->op = AB_OP_SETID, c->kind = AB_KIND_NONE, c->info = AB_INFO_NONAME;
		break;
	default:
		return 0;
	}
	if (c->kind == AB_KIND_FD && dfd1 == AB_AT_FDCWD)
		dfd1 = -1; /* fchdir(AT_FDCWD) is EBADF, not the cwd */
	c->dfd1 = dfd1;
	c->dfd2 = two ? dfd2 : AB_AT_FDCWD;
	return 1;
}

#endif
