/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sys_enter side: what a traced syscall's arguments mean (enum ab_sys ->
 * operation, path pointers, flags) and the base directories its relative
 * paths are resolved against, saved in struct ab_stash until sys_exit.
 */
#ifndef AB_STASH_H
#define AB_STASH_H

#define AB_AT_FDCWD -100
#define AB_AT_REMOVEDIR 0x200
#define AB_O_CREAT_WR_TRUNC 01101 /* O_CREAT|O_WRONLY|O_TRUNC: what creat means */

enum ab_kind {
	AB_KIND_PATH = 0,   /* path string(s) relative to base directories */
	AB_KIND_FD = 1,     /* path 1 is the file of a descriptor (fchdir, ftruncate) */
	AB_KIND_HOW = 2,    /* openat2: ptr2 is struct open_how */
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

/* ab_resolve records the base directories of the stashed paths and the
 * task's root, as they are now. */
static __always_inline void ab_resolve(struct task_struct *task, struct ab_stash *st)
{
	ab_base(task, st->dfd1, &st->dent1, &st->mnt1);
	if (st->ptr2 && !(st->info & AB_INFO_RAW2))
		ab_base(task, st->dfd2, &st->dent2, &st->mnt2);
	struct fs_struct *fs = BPF_CORE_READ(task, fs);
	st->rootd = (__u64)BPF_CORE_READ(fs, root.dentry);
	st->rootm = (__u64)BPF_CORE_READ(fs, root.mnt);
	st->based = 1;
}

static __always_inline int ab_fill_stash(struct task_struct *task, int sys, __u64 a[5],
					 struct ab_stash *st)
{
	int dfd1 = AB_AT_FDCWD, dfd2 = AB_AT_FDCWD, two = 0;

	switch (sys) {
	case AB_SYS_OPEN:
		st->op = AB_OP_OPEN, st->ptr1 = a[0], st->flags = a[1];
		st->info = AB_INFO_FLAGS;
		break;
	case AB_SYS_OPENAT:
		st->op = AB_OP_OPEN, dfd1 = a[0], st->ptr1 = a[1], st->flags = a[2];
		st->info = AB_INFO_FLAGS;
		break;
	case AB_SYS_OPENAT2:
		st->op = AB_OP_OPEN, dfd1 = a[0], st->ptr1 = a[1], st->ptr2 = a[2];
		st->kind = AB_KIND_HOW, st->info = AB_INFO_FLAGS;
		break;
	case AB_SYS_CREAT:
		st->op = AB_OP_OPEN, st->ptr1 = a[0], st->flags = AB_O_CREAT_WR_TRUNC;
		st->info = AB_INFO_FLAGS;
		break;
	case AB_SYS_EXECVE:
		st->op = AB_OP_EXEC, st->ptr1 = a[0];
		break;
	case AB_SYS_EXECVEAT:
		st->op = AB_OP_EXEC, dfd1 = a[0], st->ptr1 = a[1];
		if (dfd1 != AB_AT_FDCWD)
			st->info = AB_INFO_DEVFD;
		break;
	case AB_SYS_MKDIR:
		st->op = AB_OP_MKDIR, st->ptr1 = a[0];
		break;
	case AB_SYS_MKDIRAT:
		st->op = AB_OP_MKDIR, dfd1 = a[0], st->ptr1 = a[1];
		break;
	case AB_SYS_UNLINK:
		st->op = AB_OP_UNLINK, st->ptr1 = a[0];
		break;
	case AB_SYS_UNLINKAT:
		st->op = (a[2] & AB_AT_REMOVEDIR) ? AB_OP_RMDIR : AB_OP_UNLINK;
		dfd1 = a[0], st->ptr1 = a[1];
		break;
	case AB_SYS_RMDIR:
		st->op = AB_OP_RMDIR, st->ptr1 = a[0];
		break;
	case AB_SYS_RENAME:
	case AB_SYS_LINK:
		st->op = sys == AB_SYS_RENAME ? AB_OP_RENAME : AB_OP_LINK;
		st->ptr1 = a[0], st->ptr2 = a[1], two = 1;
		break;
	case AB_SYS_RENAMEAT:
	case AB_SYS_RENAMEAT2:
	case AB_SYS_LINKAT:
		st->op = sys == AB_SYS_LINKAT ? AB_OP_LINK : AB_OP_RENAME;
		dfd1 = a[0], st->ptr1 = a[1], dfd2 = a[2], st->ptr2 = a[3], two = 1;
		break;
	case AB_SYS_SYMLINK: /* path 1: the new link; path 2: its target as given */
		st->op = AB_OP_SYMLINK, st->ptr1 = a[1], st->ptr2 = a[0];
		st->info = AB_INFO_RAW2;
		break;
	case AB_SYS_SYMLINKAT:
		st->op = AB_OP_SYMLINK, dfd1 = a[1], st->ptr1 = a[2], st->ptr2 = a[0];
		st->info = AB_INFO_RAW2;
		break;
	case AB_SYS_TRUNCATE:
		st->op = AB_OP_TRUNCATE, st->ptr1 = a[0];
		break;
	case AB_SYS_FTRUNCATE:
		st->op = AB_OP_TRUNCATE, dfd1 = a[0], st->kind = AB_KIND_FD;
		break;
	case AB_SYS_CHDIR:
		st->op = AB_OP_CHDIR, st->ptr1 = a[0];
		break;
	case AB_SYS_FCHDIR:
		st->op = AB_OP_CHDIR, dfd1 = a[0], st->kind = AB_KIND_FD;
		break;
	default:
		return 0;
	}
	if (st->kind == AB_KIND_FD && dfd1 == AB_AT_FDCWD)
		dfd1 = -1; /* fchdir(AT_FDCWD) is EBADF, not the cwd */
	st->dfd1 = dfd1;
	st->dfd2 = two ? dfd2 : AB_AT_FDCWD;
	/* Base directories are looked up at exit, and only for a relative
	 * path, except where the call itself changes them: chdir moves the
	 * cwd, and a successful execveat may close its dirfd (O_CLOEXEC)
	 * before the event is written. */
	if (sys == AB_SYS_CHDIR || sys == AB_SYS_EXECVEAT)
		ab_resolve(task, st);
	return 1;
}

#endif
