// SPDX-License-Identifier: GPL-2.0
//go:build ignore

/*
 * authbench tracer: file accesses and process lifecycle of traced trees.
 *
 * At sys_exit of a traced syscall of a process in a traced tree the
 * arguments are decoded (enum ab_sys, stash.h), the user strings read
 * (the kernel has faulted them in by then), base directories walked when
 * a path is relative (path.h) and one event with the result is written to
 * the ring buffer (event.h). chdir and execveat keep state from sys_enter
 * in ab_inflight. A successful execve is written at sched_process_exec,
 * where the old address space is gone but bprm->filename holds the name.
 * Fork/exit maintain tree membership (ab_procs). Everything returns after
 * one switch (and, for a traced syscall, one hash lookup) when the current
 * process is not in a traced tree.
 */
#include "include/vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "tracer.h"
#include "maps.h"
#include "path.h"
#include "syscalls.h"
#include "stash.h"
#include "event.h"

char LICENSE[] SEC("license") = "GPL";

/* ab_session returns the session of the current process, 0 if none. */
static __always_inline __u64 ab_session(__u64 pid_tgid)
{
	__u32 tgid = pid_tgid >> 32;
	__u64 *session = bpf_map_lookup_elem(&ab_procs, &tgid);
	return session ? *session : 0;
}

/* ab_on_enter stashes a traced syscall of a process of session. */
static __always_inline int ab_on_enter(long id, int compat, __u64 a[5], __u64 session,
				       __u64 pid_tgid)
{
	int sys = compat ? ab_sys32(id) : ab_sys64(id);
	if (sys == AB_SYS_NONE)
		return 0;
	struct task_struct *task = (void *)bpf_get_current_task();
	struct ab_stash st = {.session = session};
	if (!ab_fill_stash(task, sys, a, &st))
		return 0;
	if (bpf_map_update_elem(&ab_inflight, &pid_tgid, &st, BPF_ANY))
		ab_lose(session, AB_CNT_STASH);
	return 0;
}

/*
 * Two ways in. By default raw tracepoints on sys_enter/sys_exit: they see
 * every syscall, ia32 (int 0x80, compat) ones included, and attach and
 * detach in milliseconds; every syscall of the machine pays the raw
 * tracepoint dispatch (~145 ns here) and a switch. Most events are then
 * built at sys_exit alone, from the user register frame, which still
 * holds the arguments; only chdir and execveat stash state at entry.
 * Opt-in (tracer.Options.SyscallTracepoints): per-syscall tracepoints
 * (syscalls/sys_enter_<name>, one entry program per argument count) cost
 * other syscalls only ~55 ns, but x86 does not fire them for ia32
 * syscalls, and detaching them waits for RCU-tasks grace periods (about
 * two seconds): for a long-running daemon only. (BTF tp_btf programs
 * would cost ~15 ms each of kernel BTF lookups at load.)
 */
/* A tracepoint program may read no further into its context than the
 * event's record goes, so there is one entry program per argument count
 * (tracer/attach.go picks it per syscall). */
#define AB_TP_ENTER(n, ...)                                                  \
	SEC("tracepoint/syscalls/sys_enter_" #n "args")                       \
	int ab_tp_enter##n(struct trace_event_raw_sys_enter *ctx)            \
	{                                                                    \
		__u64 pid_tgid = bpf_get_current_pid_tgid();                 \
		__u64 session = ab_session(pid_tgid);                        \
		if (!session)                                                \
			return 0;                                            \
		__u64 a[5] = {__VA_ARGS__};                                  \
		return ab_on_enter(ctx->id, 0, a, session, pid_tgid);        \
	}
AB_TP_ENTER(1, ctx->args[0])
AB_TP_ENTER(2, ctx->args[0], ctx->args[1])
AB_TP_ENTER(3, ctx->args[0], ctx->args[1], ctx->args[2])
AB_TP_ENTER(4, ctx->args[0], ctx->args[1], ctx->args[2], ctx->args[3])
AB_TP_ENTER(5, ctx->args[0], ctx->args[1], ctx->args[2], ctx->args[3], ctx->args[4])

/* ab_needs_entry: the syscall numbers (either ABI) whose events need
 * state from before the call (chdir moves the cwd, a successful execveat
 * may close its dirfd); every other traced syscall is read at exit, where
 * the user register frame still holds its arguments. */
static __always_inline int ab_needs_entry(long id)
{
	return id == 80 || id == 322 || id == 12 || id == 358;
}

SEC("raw_tp/sys_enter")
int BPF_PROG(ab_sys_enter, struct pt_regs *regs, long id)
{
	if (!ab_needs_entry(id))
		return 0;
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u64 session = ab_session(pid_tgid);
	if (!session)
		return 0;
	struct task_struct *task = (void *)bpf_get_current_task();
	int compat = BPF_CORE_READ(task, thread_info.status) & AB_TS_COMPAT;
	int sys = compat ? ab_sys32(id) : ab_sys64(id);
	if (sys != AB_SYS_CHDIR && sys != AB_SYS_EXECVEAT)
		return 0;
	__u64 a[5];
	ab_args(regs, compat, a);
	return ab_on_enter(id, compat, a, session, pid_tgid);
}

/* ab_emit writes the event of a decoded syscall with its result. */
static __always_inline void ab_emit(struct ab_stash *st, long ret)
{
	struct ab_event *e = ab_header(st->session, st->op, ret, st->info);
	if (!e)
		return;
	if (st->kind == AB_KIND_HOW)
		bpf_probe_read_user(&e->flags, sizeof(e->flags), (void *)st->ptr2);
	else
		e->flags = st->flags;
	__u32 off = 0;
	if (st->kind == AB_KIND_FD) {
		if (!st->based)
			ab_resolve((void *)bpf_get_current_task(), st);
		if (st->dent1) {
			e->len[1] = ab_walk_dir(e, 0, st->dent1, st->mnt1, st->rootd, st->rootm);
			off = e->len[1];
		} else {
			e->info |= AB_INFO_NOBASE;
		}
	} else {
		off = ab_user_path(e, 0, 0, st->ptr1, st, 1);
		if (st->ptr2 && st->kind != AB_KIND_HOW)
			off = ab_user_path(e, off, 2, st->ptr2, st, !(st->info & AB_INFO_RAW2));
	}
	ab_submit(e, off);
}

/* ab_on_exit emits the event of the stashed syscall and drops the stash. */
static __always_inline void ab_on_exit(__u64 pid_tgid, struct ab_stash *st, long ret)
{
	ab_emit(st, ret);
	bpf_map_delete_elem(&ab_inflight, &pid_tgid);
}

SEC("tracepoint/syscalls/sys_exit_openat")
int ab_tp_exit(struct trace_event_raw_sys_exit *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct ab_stash *st = bpf_map_lookup_elem(&ab_inflight, &pid_tgid);
	if (st)
		ab_on_exit(pid_tgid, st, ctx->ret);
	return 0;
}

SEC("raw_tp/sys_exit")
int BPF_PROG(ab_sys_exit, struct pt_regs *regs, long ret)
{
	long id = BPF_CORE_READ(regs, orig_ax);
	if (!ab_sys64(id) && !ab_sys32(id))
		return 0;
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u64 session = ab_session(pid_tgid);
	if (!session)
		return 0;
	if (ab_needs_entry(id)) {
		struct ab_stash *st = bpf_map_lookup_elem(&ab_inflight, &pid_tgid);
		if (st) {
			ab_on_exit(pid_tgid, st, ret);
			return 0;
		}
	}
	struct task_struct *task = (void *)bpf_get_current_task();
	int compat = BPF_CORE_READ(task, thread_info.status) & AB_TS_COMPAT;
	int sys = compat ? ab_sys32(id) : ab_sys64(id);
	if (sys == AB_SYS_NONE || sys == AB_SYS_CHDIR || sys == AB_SYS_EXECVEAT)
		return 0; /* not traced, or its entry was not stashed (counted there) */
	if (sys == AB_SYS_EXECVE && ret == 0)
		return 0; /* written at sched_process_exec */
	__u64 a[5];
	ab_args(regs, compat, a);
	struct ab_stash st = {.session = session};
	if (ab_fill_stash(task, sys, a, &st))
		ab_emit(&st, ret);
	return 0;
}

SEC("raw_tp/sched_process_exec")
int BPF_PROG(ab_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = BPF_CORE_READ(p, tgid);
	__u64 *session = bpf_map_lookup_elem(&ab_procs, &tgid);
	if (!session)
		return 0;
	/* A non-leader thread that execs takes over the leader's pid. */
	__u64 key = ((__u64)tgid << 32) | (__u32)old_pid;
	struct ab_stash *st = bpf_map_lookup_elem(&ab_inflight, &key);
	struct ab_event *e = ab_header(*session, AB_OP_EXEC, 0, st ? st->info : 0);
	if (!e)
		goto out;
	long n = bpf_probe_read_kernel_str(&e->data[0], AB_PATH_MAX, BPF_CORE_READ(bprm, filename));
	if (n < 0) {
		e->info |= AB_INFO_FAULT;
		n = 0;
	}
	n &= (AB_PATH_MAX * 2 - 1);
	e->len[0] = n;
	__u32 off = n;
	if (n < 2 || e->data[0] != '/' || (e->info & AB_INFO_DEVFD)) {
		__u64 dent, mnt, rootd, rootm;
		if (st && st->based) {
			dent = st->dent1, mnt = st->mnt1, rootd = st->rootd, rootm = st->rootm;
		} else {
			struct fs_struct *fs = BPF_CORE_READ(p, fs);
			dent = (__u64)BPF_CORE_READ(fs, pwd.dentry);
			mnt = (__u64)BPF_CORE_READ(fs, pwd.mnt);
			rootd = (__u64)BPF_CORE_READ(fs, root.dentry);
			rootm = (__u64)BPF_CORE_READ(fs, root.mnt);
		}
		if (dent) {
			e->len[1] = ab_walk_dir(e, off, dent, mnt, rootd, rootm);
			off += e->len[1];
		} else {
			e->info |= AB_INFO_NOBASE;
		}
	}
	ab_submit(e, off);
out:
	if (st)
		bpf_map_delete_elem(&ab_inflight, &key);
	return 0;
}

SEC("raw_tp/sched_process_fork")
int BPF_PROG(ab_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ctgid = BPF_CORE_READ(child, tgid);
	__u32 cpid = BPF_CORE_READ(child, pid);
	if (cpid != ctgid)
		return 0; /* a new thread: its process is already a member */
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	__u64 *session = bpf_map_lookup_elem(&ab_procs, &ptgid);
	if (!session)
		return 0;
	__u64 s = *session;
	if (!bpf_map_lookup_elem(&ab_sessions, &s))
		return 0; /* the session is closing */
	if (bpf_map_update_elem(&ab_procs, &ctgid, &s, BPF_ANY)) {
		ab_lose(s, AB_CNT_PROCS);
		return 0;
	}
	struct ab_event *e = ab_header(s, AB_OP_FORK, 0, 0);
	if (!e)
		return 0;
	e->pid = cpid;
	e->tgid = ctgid;
	e->ppid = BPF_CORE_READ(child, real_parent, tgid);
	BPF_CORE_READ_INTO(&e->comm, child, comm);
	ab_submit(e, 0);
	return 0;
}

#define AB_SIGNAL_GROUP_EXIT 0x00000004

/* group_dead is an argument of the tracepoint since Linux 6.16. */
SEC("raw_tp/sched_process_exit")
int BPF_PROG(ab_exit, struct task_struct *p, bool group_dead)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tgid = pid_tgid >> 32;
	__u64 *session = bpf_map_lookup_elem(&ab_procs, &tgid);
	if (!session)
		return 0;
	bpf_map_delete_elem(&ab_inflight, &pid_tgid); /* killed mid-syscall */
	if (!group_dead)
		return 0;
	__u64 s = *session;
	int code = BPF_CORE_READ(p, exit_code);
	struct signal_struct *sig = BPF_CORE_READ(p, signal);
	if (BPF_CORE_READ(sig, flags) & AB_SIGNAL_GROUP_EXIT)
		code = BPF_CORE_READ(sig, group_exit_code);
	int status = (code & 0x7f) ? 128 + (code & 0x7f) : (code >> 8) & 0xff;
	struct ab_event *e = ab_header(s, AB_OP_EXIT, status, 0);
	if (e)
		ab_submit(e, 0);
	bpf_map_delete_elem(&ab_procs, &tgid);
	return 0;
}

/* ab_sync writes a drain marker: once user space reads it, every event
 * committed before the BPF_PROG_RUN call has been read. */
SEC("syscall")
int ab_sync(struct ab_sync_args *args)
{
	struct ab_event *e;
	__u32 zero = 0;
	e = bpf_map_lookup_elem(&ab_scratch, &zero);
	if (!e)
		return 1;
	__builtin_memset(e, 0, offsetof(struct ab_event, data));
	e->session = args->session;
	e->ts = args->seq;
	e->op = AB_OP_SYNC;
	return bpf_ringbuf_output(&ab_events, e, offsetof(struct ab_event, data), BPF_RB_FORCE_WAKEUP) ? 1 : 0;
}
