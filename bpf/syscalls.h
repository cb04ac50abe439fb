/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The traced system calls: the numbers of the target architecture mapped
 * to one canonical id by table lookup (the sys_exit fast path is two
 * loads), and the argument registers of each ABI. On x86 these are the
 * x86-64, x32 and ia32 (int 0x80 / compat) numbers: a 32-bit process in
 * the tree must not be able to hide its accesses. On arm64 they are the
 * generic (asm-generic/unistd.h) numbers of AArch64 tasks; AArch32 (compat)
 * tasks are not decoded (see ab_sys_nr), which docs/trace-events.md states.
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
	AB_SYS_MMAP,
	AB_SYS_MPROTECT,
	AB_SYS_PKEY_MPROTECT,
	AB_SYS_CHOWN,
	AB_SYS_FCHOWN,
	AB_SYS_LCHOWN,
	AB_SYS_FCHOWNAT,
	AB_SYS_CHMOD,
	AB_SYS_FCHMOD,
	AB_SYS_FCHMODAT,
	AB_SYS_FCHMODAT2,
	AB_SYS_SETXATTR,
	AB_SYS_LSETXATTR,
	AB_SYS_FSETXATTR,
	AB_SYS_REMOVEXATTR,
	AB_SYS_LREMOVEXATTR,
	AB_SYS_FREMOVEXATTR,
	AB_SYS_SETXATTRAT,
	AB_SYS_REMOVEXATTRAT,
	AB_SYS_MKNOD,
	AB_SYS_MKNODAT,
	AB_SYS_SETUID,
	AB_SYS_SETGID,
	AB_SYS_SETREUID,
	AB_SYS_SETREGID,
	AB_SYS_SETRESUID,
	AB_SYS_SETRESGID,
	AB_SYS_SETGROUPS,
	AB_SYS_SETFSUID,
	AB_SYS_SETFSGID,
	AB_SYS_MAX,
};

/* Numbers every architecture shares (the unified range from 424 on). */
#define AB_COMMON_SYSCALLS                      \
	[425] = AB_SYS_URING_SETUP,             \
	[437] = AB_SYS_OPENAT2,                 \
	[452] = AB_SYS_FCHMODAT2,               \
	[463] = AB_SYS_SETXATTRAT,              \
	[466] = AB_SYS_REMOVEXATTRAT,

/* Generic (asm-generic/unistd.h) numbers, of arm64 and riscv64: no open,
 * creat, mkdir, unlink, rmdir, rename, link, symlink, chmod, chown, lchown
 * or mknod, only their *at forms. */
#define AB_GENERIC_SYSCALLS \
	[56] = AB_SYS_OPENAT, \
	[221] = AB_SYS_EXECVE, \
	[281] = AB_SYS_EXECVEAT, \
	[34] = AB_SYS_MKDIRAT, \
	[35] = AB_SYS_UNLINKAT, \
	[38] = AB_SYS_RENAMEAT, \
	[276] = AB_SYS_RENAMEAT2, \
	[37] = AB_SYS_LINKAT, \
	[36] = AB_SYS_SYMLINKAT, \
	[45] = AB_SYS_TRUNCATE, \
	[46] = AB_SYS_FTRUNCATE, \
	[49] = AB_SYS_CHDIR, \
	[50] = AB_SYS_FCHDIR, \
	[265] = AB_SYS_OPEN_BY_HANDLE, \
	[222] = AB_SYS_MMAP, \
	[226] = AB_SYS_MPROTECT, \
	[288] = AB_SYS_PKEY_MPROTECT, \
	[55] = AB_SYS_FCHOWN, \
	[54] = AB_SYS_FCHOWNAT, \
	[52] = AB_SYS_FCHMOD, \
	[53] = AB_SYS_FCHMODAT, \
	[5] = AB_SYS_SETXATTR, \
	[6] = AB_SYS_LSETXATTR, \
	[7] = AB_SYS_FSETXATTR, \
	[14] = AB_SYS_REMOVEXATTR, \
	[15] = AB_SYS_LREMOVEXATTR, \
	[16] = AB_SYS_FREMOVEXATTR, \
	[33] = AB_SYS_MKNODAT, \
	[146] = AB_SYS_SETUID, \
	[144] = AB_SYS_SETGID, \
	[145] = AB_SYS_SETREUID, \
	[143] = AB_SYS_SETREGID, \
	[147] = AB_SYS_SETRESUID, \
	[149] = AB_SYS_SETRESGID, \
	[159] = AB_SYS_SETGROUPS, \
	[151] = AB_SYS_SETFSUID, \
	[152] = AB_SYS_SETFSGID, \
	AB_COMMON_SYSCALLS

#if defined(__TARGET_ARCH_x86)

#define AB_TS_COMPAT 0x0002           /* x86 thread_info.status: in a compat syscall */
#define AB_X32_SYSCALL_BIT 0x40000000 /* set in the number of an x32 syscall */
#define AB_NR_MAX 1024                /* table size: every number below is looked up */
#define AB_X32_ONLY 512               /* from here on, numbers exist only for x32 */

/* x86-64 numbers; x32 uses them too (with AB_X32_SYSCALL_BIT), except
 * for its own execve and execveat. */
static const __u8 ab_sys64[AB_NR_MAX] = {
	[2] = AB_SYS_OPEN,
	[257] = AB_SYS_OPENAT,
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
	[9] = AB_SYS_MMAP,
	[10] = AB_SYS_MPROTECT,
	[329] = AB_SYS_PKEY_MPROTECT,
	[92] = AB_SYS_CHOWN,
	[93] = AB_SYS_FCHOWN,
	[94] = AB_SYS_LCHOWN,
	[260] = AB_SYS_FCHOWNAT,
	[90] = AB_SYS_CHMOD,
	[91] = AB_SYS_FCHMOD,
	[268] = AB_SYS_FCHMODAT,
	[188] = AB_SYS_SETXATTR,
	[189] = AB_SYS_LSETXATTR,
	[190] = AB_SYS_FSETXATTR,
	[197] = AB_SYS_REMOVEXATTR,
	[198] = AB_SYS_LREMOVEXATTR,
	[199] = AB_SYS_FREMOVEXATTR,
	[133] = AB_SYS_MKNOD,
	[259] = AB_SYS_MKNODAT,
	[105] = AB_SYS_SETUID,
	[106] = AB_SYS_SETGID,
	[113] = AB_SYS_SETREUID,
	[114] = AB_SYS_SETREGID,
	[117] = AB_SYS_SETRESUID,
	[119] = AB_SYS_SETRESGID,
	[116] = AB_SYS_SETGROUPS,
	[122] = AB_SYS_SETFSUID,
	[123] = AB_SYS_SETFSGID,
	AB_COMMON_SYSCALLS
};

/* ia32 numbers. The 16-bit-id calls (chown, setuid, ...) and their 32-bit
 * twins (chown32, setuid32, ...) share a canonical id. The old mmap (90),
 * which passes its arguments in a struct, is not decoded; mmap2 is. */
static const __u8 ab_sys32[AB_NR_MAX] = {
	[5] = AB_SYS_OPEN,
	[295] = AB_SYS_OPENAT,
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
	[192] = AB_SYS_MMAP, /* mmap2 */
	[125] = AB_SYS_MPROTECT,
	[380] = AB_SYS_PKEY_MPROTECT,
	[182] = AB_SYS_CHOWN,
	[212] = AB_SYS_CHOWN, /* chown32 */
	[95] = AB_SYS_FCHOWN,
	[207] = AB_SYS_FCHOWN, /* fchown32 */
	[16] = AB_SYS_LCHOWN,
	[198] = AB_SYS_LCHOWN, /* lchown32 */
	[298] = AB_SYS_FCHOWNAT,
	[15] = AB_SYS_CHMOD,
	[94] = AB_SYS_FCHMOD,
	[306] = AB_SYS_FCHMODAT,
	[226] = AB_SYS_SETXATTR,
	[227] = AB_SYS_LSETXATTR,
	[228] = AB_SYS_FSETXATTR,
	[235] = AB_SYS_REMOVEXATTR,
	[236] = AB_SYS_LREMOVEXATTR,
	[237] = AB_SYS_FREMOVEXATTR,
	[14] = AB_SYS_MKNOD,
	[297] = AB_SYS_MKNODAT,
	[23] = AB_SYS_SETUID,
	[213] = AB_SYS_SETUID, /* setuid32 */
	[46] = AB_SYS_SETGID,
	[214] = AB_SYS_SETGID, /* setgid32 */
	[70] = AB_SYS_SETREUID,
	[203] = AB_SYS_SETREUID, /* setreuid32 */
	[71] = AB_SYS_SETREGID,
	[204] = AB_SYS_SETREGID, /* setregid32 */
	[164] = AB_SYS_SETRESUID,
	[208] = AB_SYS_SETRESUID, /* setresuid32 */
	[170] = AB_SYS_SETRESGID,
	[210] = AB_SYS_SETRESGID, /* setresgid32 */
	[81] = AB_SYS_SETGROUPS,
	[206] = AB_SYS_SETGROUPS, /* setgroups32 */
	[138] = AB_SYS_SETFSUID,
	[215] = AB_SYS_SETFSUID, /* setfsuid32 */
	[139] = AB_SYS_SETFSGID,
	[216] = AB_SYS_SETFSGID, /* setfsgid32 */
	AB_COMMON_SYSCALLS
};

/* ab_sys_nr returns the number of the syscall of a sys_exit, or -1 when
 * no ABI traces it: the fast path of every syscall of the machine. */
static __always_inline long ab_sys_nr(struct pt_regs *regs)
{
	__u64 raw = regs->orig_ax;
	__u64 nr = raw & ~(__u64)AB_X32_SYSCALL_BIT;
	if (nr >= AB_NR_MAX || (nr >= AB_X32_ONLY && nr == raw))
		return -1;
	if (!(ab_sys64[nr] | ab_sys32[nr]))
		return -1;
	return nr;
}

/* ab_sys_decode returns the canonical id of syscall nr (from ab_sys_nr)
 * as the task's ABI numbers it, and reads its first five arguments from
 * the user register frame saved at entry (x32 pointers are zero-extended). */
static __always_inline int ab_sys_decode(struct pt_regs *regs, struct task_struct *task, long nr,
					 __u64 a[5])
{
	if (nr < 0 || nr >= AB_NR_MAX)
		return AB_SYS_NONE;
	if (task->thread_info.status & AB_TS_COMPAT) {
		a[0] = (__u32)regs->bx;
		a[1] = (__u32)regs->cx;
		a[2] = (__u32)regs->dx;
		a[3] = (__u32)regs->si;
		a[4] = (__u32)regs->di;
		return ab_sys32[nr];
	}
	a[0] = regs->di;
	a[1] = regs->si;
	a[2] = regs->dx;
	a[3] = regs->r10;
	a[4] = regs->r8;
	return ab_sys64[nr];
}

#elif defined(__TARGET_ARCH_arm64)

/* The kernel's arm64 struct pt_regs (the user frame), relocated by CO-RE:
 * x0 holds the result at sys_exit, orig_x0 the first argument. */
struct pt_regs___ab_arm64 {
	__u64 regs[31];
	__u64 sp;
	__u64 pc;
	__u64 pstate;
	__u64 orig_x0;
	__s32 syscallno;
} __attribute__((preserve_access_index));

#define AB_NR_MAX 512
#define AB_PSR_MODE32_BIT 0x10 /* pstate: the task runs AArch32 code */

static const __u8 ab_sys64[AB_NR_MAX] = {
	AB_GENERIC_SYSCALLS
};

/* ab_sys_nr: see the x86 version. */
static __always_inline long ab_sys_nr(struct pt_regs *regs)
{
	struct pt_regs___ab_arm64 *r = (void *)regs;
	__u64 nr = (__u32)r->syscallno;
	if (nr >= AB_NR_MAX || !ab_sys64[nr])
		return -1;
	return nr;
}

/* ab_sys_decode: see the x86 version. An AArch32 task's numbers are the
 * arm EABI's, which this table does not hold: it is not decoded. */
static __always_inline int ab_sys_decode(struct pt_regs *regs, struct task_struct *task, long nr,
					 __u64 a[5])
{
	struct pt_regs___ab_arm64 *r = (void *)regs;
	if (nr < 0 || nr >= AB_NR_MAX || (r->pstate & AB_PSR_MODE32_BIT))
		return AB_SYS_NONE;
	a[0] = r->orig_x0;
	a[1] = r->regs[1];
	a[2] = r->regs[2];
	a[3] = r->regs[3];
	a[4] = r->regs[4];
	return ab_sys64[nr];
}

#elif defined(__TARGET_ARCH_riscv)

/* The kernel's riscv struct pt_regs (the user frame), relocated by CO-RE:
 * a0 holds the result at sys_exit, orig_a0 the first argument, a7 the
 * number. Built (GOARCH=riscv64), not run on our machines. */
struct pt_regs___ab_riscv {
	__u64 epc, ra, sp, gp, tp, t0, t1, t2, s0, s1;
	__u64 a0, a1, a2, a3, a4, a5, a6, a7;
	__u64 s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, t3, t4, t5, t6;
	__u64 status, badaddr, cause, orig_a0;
} __attribute__((preserve_access_index));

#define AB_NR_MAX 512

static const __u8 ab_sys64[AB_NR_MAX] = {
	AB_GENERIC_SYSCALLS
};

/* ab_sys_nr: see the x86 version. */
static __always_inline long ab_sys_nr(struct pt_regs *regs)
{
	struct pt_regs___ab_riscv *r = (void *)regs;
	__u64 nr = r->a7;
	if (nr >= AB_NR_MAX || !ab_sys64[nr])
		return -1;
	return nr;
}

/* ab_sys_decode: see the x86 version (riscv64 has no compat ABI here). */
static __always_inline int ab_sys_decode(struct pt_regs *regs, struct task_struct *task, long nr,
					 __u64 a[5])
{
	struct pt_regs___ab_riscv *r = (void *)regs;
	if (nr < 0 || nr >= AB_NR_MAX)
		return AB_SYS_NONE;
	a[0] = r->orig_a0;
	a[1] = r->a1;
	a[2] = r->a2;
	a[3] = r->a3;
	a[4] = r->a4;
	return ab_sys64[nr];
}

#elif defined(__TARGET_ARCH_s390)

/* The kernel's s390 struct pt_regs, relocated by CO-RE (its fields sit in
 * anonymous unions there): gprs[2] holds the result at sys_exit,
 * orig_gpr2 the first argument, int_code's low 16 bits the number. Built
 * (GOARCH=s390x), not run on our machines. */
struct ab_psw___ab_s390 {
	__u64 mask;
	__u64 addr;
};
struct pt_regs___ab_s390 {
	struct ab_psw___ab_s390 psw;
	__u64 gprs[16];
	__u64 orig_gpr2;
	__u32 int_code;
} __attribute__((preserve_access_index));

#define AB_NR_MAX 512
#define AB_PSW_MASK_EA 0x0000000100000000ULL /* psw.mask: 64-bit addressing (not a 31-bit compat task) */

/* s390x numbers. Its mmap (90) is old_mmap, whose arguments are a struct
 * in user memory: it is not decoded (no exec_via_mmap events on s390x, as
 * docs/trace-events.md states); mprotect is. */
static const __u8 ab_sys64[AB_NR_MAX] = {
	[5] = AB_SYS_OPEN,
	[288] = AB_SYS_OPENAT,
	[8] = AB_SYS_CREAT,
	[11] = AB_SYS_EXECVE,
	[354] = AB_SYS_EXECVEAT,
	[39] = AB_SYS_MKDIR,
	[289] = AB_SYS_MKDIRAT,
	[10] = AB_SYS_UNLINK,
	[294] = AB_SYS_UNLINKAT,
	[40] = AB_SYS_RMDIR,
	[38] = AB_SYS_RENAME,
	[295] = AB_SYS_RENAMEAT,
	[347] = AB_SYS_RENAMEAT2,
	[9] = AB_SYS_LINK,
	[296] = AB_SYS_LINKAT,
	[83] = AB_SYS_SYMLINK,
	[297] = AB_SYS_SYMLINKAT,
	[92] = AB_SYS_TRUNCATE,
	[93] = AB_SYS_FTRUNCATE,
	[12] = AB_SYS_CHDIR,
	[133] = AB_SYS_FCHDIR,
	[336] = AB_SYS_OPEN_BY_HANDLE,
	[125] = AB_SYS_MPROTECT,
	[384] = AB_SYS_PKEY_MPROTECT,
	[212] = AB_SYS_CHOWN,
	[207] = AB_SYS_FCHOWN,
	[198] = AB_SYS_LCHOWN,
	[291] = AB_SYS_FCHOWNAT,
	[15] = AB_SYS_CHMOD,
	[94] = AB_SYS_FCHMOD,
	[299] = AB_SYS_FCHMODAT,
	[224] = AB_SYS_SETXATTR,
	[225] = AB_SYS_LSETXATTR,
	[226] = AB_SYS_FSETXATTR,
	[233] = AB_SYS_REMOVEXATTR,
	[234] = AB_SYS_LREMOVEXATTR,
	[235] = AB_SYS_FREMOVEXATTR,
	[14] = AB_SYS_MKNOD,
	[290] = AB_SYS_MKNODAT,
	[213] = AB_SYS_SETUID,
	[214] = AB_SYS_SETGID,
	[203] = AB_SYS_SETREUID,
	[204] = AB_SYS_SETREGID,
	[208] = AB_SYS_SETRESUID,
	[210] = AB_SYS_SETRESGID,
	[206] = AB_SYS_SETGROUPS,
	[215] = AB_SYS_SETFSUID,
	[216] = AB_SYS_SETFSGID,
	AB_COMMON_SYSCALLS
};

/* ab_sys_nr: see the x86 version. */
static __always_inline long ab_sys_nr(struct pt_regs *regs)
{
	struct pt_regs___ab_s390 *r = (void *)regs;
	__u64 nr = r->int_code & 0xffff;
	if (nr >= AB_NR_MAX || !ab_sys64[nr])
		return -1;
	return nr;
}

/* ab_sys_decode: see the x86 version. A 31-bit (compat) task's numbers are
 * not decoded. */
static __always_inline int ab_sys_decode(struct pt_regs *regs, struct task_struct *task, long nr,
					 __u64 a[5])
{
	struct pt_regs___ab_s390 *r = (void *)regs;
	if (nr < 0 || nr >= AB_NR_MAX || !(r->psw.mask & AB_PSW_MASK_EA))
		return AB_SYS_NONE;
	a[0] = r->orig_gpr2;
	a[1] = r->gprs[3];
	a[2] = r->gprs[4];
	a[3] = r->gprs[5];
	a[4] = r->gprs[6];
	return ab_sys64[nr];
}

#else
#error "the tracer decodes syscalls of x86, arm64, riscv64 and s390x only (bpf2go -target amd64,arm64,riscv64,s390x)"
#endif

#endif
