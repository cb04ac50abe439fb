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

enum ab_kind {
	AB_KIND_PATH = 0,   /* path string(s) relative to base directories */
	AB_KIND_FD = 1,     /* path 1 is the file of a descriptor (fchdir, ftruncate) */
	AB_KIND_HOW = 2,    /* openat2: ptr2 is struct open_how */
	AB_KIND_NONE = 3,   /* no path: io_uring_setup, open_by_handle_at */
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
	__u8 op;
	__u16 info;
	__u8 kind;    /* enum ab_kind */
	__u8 based;   /* dent/mnt/root fields are set */
	__u8 self;    /* a relative path 1 names its base itself (chdir that succeeded) */
	__s32 dfd1;   /* directory descriptors of the paths */
	__s32 dfd2;
};

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
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	if (dfd < 0 || (unsigned int)dfd >= BPF_CORE_READ(fdt, max_fds))
		return;
	struct file **fds = BPF_CORE_READ(fdt, fd);
	struct file *f = NULL;
	bpf_probe_read_kernel(&f, sizeof(f), &fds[dfd]);
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

/* ab_fill_call decodes the arguments of syscall sys into c; it returns 0
 * for a syscall that is not traced. */
static __always_inline int ab_fill_call(int sys, __u64 a[5], struct ab_call *c)
{
	int dfd1 = AB_AT_FDCWD, dfd2 = AB_AT_FDCWD, two = 0;

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
