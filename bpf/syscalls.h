/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The traced system calls: x86-64 and ia32 (int 0x80 / compat) numbers
 * mapped to one canonical id, and the argument registers of each ABI.
 * A 32-bit process in the tree must not be able to hide its accesses.
 */
#ifndef AB_SYSCALLS_H
#define AB_SYSCALLS_H

enum ab_sys {
	AB_SYS_NONE = 0,
	AB_SYS_OPEN,
	AB_SYS_OPENAT,
	AB_SYS_OPENAT2,
	AB_SYS_CREAT,
	AB_SYS_EXECVE,
	AB_SYS_EXECVEAT,
	AB_SYS_MKDIR,
	AB_SYS_MKDIRAT,
	AB_SYS_UNLINK,
	AB_SYS_UNLINKAT,
	AB_SYS_RMDIR,
	AB_SYS_RENAME,
	AB_SYS_RENAMEAT,
	AB_SYS_RENAMEAT2,
	AB_SYS_LINK,
	AB_SYS_LINKAT,
	AB_SYS_SYMLINK,
	AB_SYS_SYMLINKAT,
	AB_SYS_TRUNCATE,
	AB_SYS_FTRUNCATE,
	AB_SYS_CHDIR,
	AB_SYS_FCHDIR,
};

#define AB_TS_COMPAT 0x0002 /* x86 thread_info.status: in a compat syscall */

static __always_inline int ab_sys64(long nr)
{
	switch (nr) {
	case 2: return AB_SYS_OPEN;
	case 257: return AB_SYS_OPENAT;
	case 437: return AB_SYS_OPENAT2;
	case 85: return AB_SYS_CREAT;
	case 59: return AB_SYS_EXECVE;
	case 322: return AB_SYS_EXECVEAT;
	case 83: return AB_SYS_MKDIR;
	case 258: return AB_SYS_MKDIRAT;
	case 87: return AB_SYS_UNLINK;
	case 263: return AB_SYS_UNLINKAT;
	case 84: return AB_SYS_RMDIR;
	case 82: return AB_SYS_RENAME;
	case 264: return AB_SYS_RENAMEAT;
	case 316: return AB_SYS_RENAMEAT2;
	case 86: return AB_SYS_LINK;
	case 265: return AB_SYS_LINKAT;
	case 88: return AB_SYS_SYMLINK;
	case 266: return AB_SYS_SYMLINKAT;
	case 76: return AB_SYS_TRUNCATE;
	case 77: return AB_SYS_FTRUNCATE;
	case 80: return AB_SYS_CHDIR;
	case 81: return AB_SYS_FCHDIR;
	}
	return AB_SYS_NONE;
}

static __always_inline int ab_sys32(long nr)
{
	switch (nr) {
	case 5: return AB_SYS_OPEN;
	case 295: return AB_SYS_OPENAT;
	case 437: return AB_SYS_OPENAT2;
	case 8: return AB_SYS_CREAT;
	case 11: return AB_SYS_EXECVE;
	case 358: return AB_SYS_EXECVEAT;
	case 39: return AB_SYS_MKDIR;
	case 296: return AB_SYS_MKDIRAT;
	case 10: return AB_SYS_UNLINK;
	case 301: return AB_SYS_UNLINKAT;
	case 40: return AB_SYS_RMDIR;
	case 38: return AB_SYS_RENAME;
	case 302: return AB_SYS_RENAMEAT;
	case 353: return AB_SYS_RENAMEAT2;
	case 9: return AB_SYS_LINK;
	case 303: return AB_SYS_LINKAT;
	case 83: return AB_SYS_SYMLINK;
	case 304: return AB_SYS_SYMLINKAT;
	case 92: return AB_SYS_TRUNCATE;
	case 193: return AB_SYS_TRUNCATE; /* truncate64 */
	case 93: return AB_SYS_FTRUNCATE;
	case 194: return AB_SYS_FTRUNCATE; /* ftruncate64 */
	case 12: return AB_SYS_CHDIR;
	case 133: return AB_SYS_FCHDIR;
	}
	return AB_SYS_NONE;
}

/* ab_args reads the first five syscall arguments of either ABI from the
 * user register frame and returns the syscall number. The frame layout is
 * ABI, so it is copied whole without CO-RE. */
static __always_inline long ab_args(struct pt_regs *regs, int compat, __u64 a[5])
{
	struct pt_regs r = {};
	bpf_probe_read_kernel(&r, sizeof(r), regs);
	if (compat) {
		a[0] = (__u32)r.bx;
		a[1] = (__u32)r.cx;
		a[2] = (__u32)r.dx;
		a[3] = (__u32)r.si;
		a[4] = (__u32)r.di;
	} else {
		a[0] = r.di;
		a[1] = r.si;
		a[2] = r.dx;
		a[3] = r.r10;
		a[4] = r.r8;
	}
	return r.orig_ax;
}

#endif
