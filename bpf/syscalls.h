/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The traced system calls: x86-64, x32 and ia32 (int 0x80 / compat)
 * numbers mapped to one canonical id by table lookup (the sys_exit fast
 * path is two loads), and the argument registers of each ABI. A 32-bit
 * process in the tree must not be able to hide its accesses.
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
	AB_SYS_OPEN_BY_HANDLE,
	AB_SYS_URING_SETUP,
};

#define AB_TS_COMPAT 0x0002           /* x86 thread_info.status: in a compat syscall */
#define AB_X32_SYSCALL_BIT 0x40000000 /* set in the number of an x32 syscall */
#define AB_NR_MAX 1024                /* table size: every number below is looked up */
#define AB_X32_ONLY 512               /* from here on, numbers exist only for x32 */

/* x86-64 numbers; x32 uses them too (with AB_X32_SYSCALL_BIT), except
 * for its own execve and execveat. */
static const __u8 ab_sys64[AB_NR_MAX] = {
	[2] = AB_SYS_OPEN,
	[257] = AB_SYS_OPENAT,
	[437] = AB_SYS_OPENAT2,
	[85] = AB_SYS_CREAT,
	[59] = AB_SYS_EXECVE,
	[520] = AB_SYS_EXECVE, /* x32 */
	[322] = AB_SYS_EXECVEAT,
	[545] = AB_SYS_EXECVEAT, /* x32 */
	[83] = AB_SYS_MKDIR,
	[258] = AB_SYS_MKDIRAT,
	[87] = AB_SYS_UNLINK,
	[263] = AB_SYS_UNLINKAT,
	[84] = AB_SYS_RMDIR,
	[82] = AB_SYS_RENAME,
	[264] = AB_SYS_RENAMEAT,
	[316] = AB_SYS_RENAMEAT2,
	[86] = AB_SYS_LINK,
	[265] = AB_SYS_LINKAT,
	[88] = AB_SYS_SYMLINK,
	[266] = AB_SYS_SYMLINKAT,
	[76] = AB_SYS_TRUNCATE,
	[77] = AB_SYS_FTRUNCATE,
	[80] = AB_SYS_CHDIR,
	[81] = AB_SYS_FCHDIR,
	[304] = AB_SYS_OPEN_BY_HANDLE,
	[425] = AB_SYS_URING_SETUP,
};

/* ia32 numbers. */
static const __u8 ab_sys32[AB_NR_MAX] = {
	[5] = AB_SYS_OPEN,
	[295] = AB_SYS_OPENAT,
	[437] = AB_SYS_OPENAT2,
	[8] = AB_SYS_CREAT,
	[11] = AB_SYS_EXECVE,
	[358] = AB_SYS_EXECVEAT,
	[39] = AB_SYS_MKDIR,
	[296] = AB_SYS_MKDIRAT,
	[10] = AB_SYS_UNLINK,
	[301] = AB_SYS_UNLINKAT,
	[40] = AB_SYS_RMDIR,
	[38] = AB_SYS_RENAME,
	[302] = AB_SYS_RENAMEAT,
	[353] = AB_SYS_RENAMEAT2,
	[9] = AB_SYS_LINK,
	[303] = AB_SYS_LINKAT,
	[83] = AB_SYS_SYMLINK,
	[304] = AB_SYS_SYMLINKAT,
	[92] = AB_SYS_TRUNCATE,
	[193] = AB_SYS_TRUNCATE, /* truncate64 */
	[93] = AB_SYS_FTRUNCATE,
	[194] = AB_SYS_FTRUNCATE, /* ftruncate64 */
	[12] = AB_SYS_CHDIR,
	[133] = AB_SYS_FCHDIR,
	[342] = AB_SYS_OPEN_BY_HANDLE,
	[425] = AB_SYS_URING_SETUP,
};

/* ab_args reads the first five syscall arguments of either ABI from the
 * user register frame saved at entry (x32 pointers are zero-extended). */
static __always_inline void ab_args(struct pt_regs *regs, int compat, __u64 a[5])
{
	if (compat) {
		a[0] = (__u32)regs->bx;
		a[1] = (__u32)regs->cx;
		a[2] = (__u32)regs->dx;
		a[3] = (__u32)regs->si;
		a[4] = (__u32)regs->di;
	} else {
		a[0] = regs->di;
		a[1] = regs->si;
		a[2] = regs->dx;
		a[3] = regs->r10;
		a[4] = regs->r8;
	}
}

#endif
