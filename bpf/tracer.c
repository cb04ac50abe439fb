// SPDX-License-Identifier: GPL-2.0
//go:build ignore

/*
 * authbench tracer: file accesses and process lifecycle of traced trees.
 *
 * One BTF-enabled raw tracepoint on sys_exit sees every syscall, ia32
 * (int 0x80, compat) and x32 ones included. Its fast path is a register
 * load and a table lookup (syscalls.h): every syscall of the machine pays
 * only that while a session is open, and nothing otherwise (user space
 * attaches the programs only while sessions exist). For a traced syscall
 * of a process in a traced tree, the arguments are decoded from the user
 * register frame (call.h), the user strings read (the kernel has faulted
 * them in by then), base directories walked when a path is relative
 * (path.h) and one event with the result is written to the ring buffer
 * (event.h). Nothing is kept from sys_enter, whose tracepoint stays off:
 * a chdir that succeeded reports the directory it moved to, and a
 * successful exec is written at sched_process_exec, where the old address
 * space is gone but bprm holds the name and the file. Fork/exit maintain
 * tree membership (ab_procs).
 */
#include "include/vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "tracer.h"
#include "maps.h"
#include "path.h"
#include "syscalls.h"
#include "call.h"
#include "event.h"

char LICENSE[] SEC("license") = "GPL";

/* ab_session returns the session of process tgid, 0 if none. */
static __always_inline __u64 ab_session(__u32 tgid)
{
	__u64 *session = bpf_map_lookup_elem(&ab_procs, &tgid);
	return session ? *session : 0;
}

/* ab_emit writes the event of a decoded syscall with its result. It is a
 * global function, so the verifier checks it once for any call rather
 * than once per syscall kind. */
__noinline int ab_emit(struct ab_call *c, long ret)
{
	if (!c)
		return 0;
	struct ab_event *e = ab_header(c->session, c->op, ret, c->info);
	if (!e)
		return 0;
	struct task_struct *task = bpf_get_current_task_btf();
	e->ppid = task->real_parent->tgid; /* a direct load: verified once here */
	if (c->kind == AB_KIND_HOW)
		bpf_probe_read_user(&e->flags, sizeof(e->flags), (void *)c->ptr2);
	else
		e->flags = c->flags;
	__u32 off = 0;
	if (c->kind == AB_KIND_FD) {
		ab_resolve(task, c);
		if (c->dent1) {
			e->len[1] = ab_walk_dir(e, 0, c->dent1, c->mnt1, c->rootd, c->rootm);
			off = e->len[1];
		} else {
			e->info |= AB_INFO_NOBASE;
		}
	} else {
		off = ab_user_path(e, 0, c, 0);
		if (c->ptr2 && c->kind != AB_KIND_HOW)
			off = ab_user_path(e, off, c, 1);
	}
	ab_submit(e, off);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(ab_sys_exit, struct pt_regs *regs, long ret)
{
	__u64 raw = regs->orig_ax;
	__u64 nr = raw & ~(__u64)AB_X32_SYSCALL_BIT;
	if (nr >= AB_NR_MAX || (nr >= AB_X32_ONLY && nr == raw))
		return 0;
	int sys64 = ab_sys64[nr], sys32 = ab_sys32[nr];
	if (!(sys64 | sys32))
		return 0;
	__u64 session = ab_session(bpf_get_current_pid_tgid() >> 32);
	if (!session)
		return 0;
	struct task_struct *task = bpf_get_current_task_btf();
	int compat = task->thread_info.status & AB_TS_COMPAT;
	int sys = compat ? sys32 : sys64;
	if ((sys == AB_SYS_EXECVE || sys == AB_SYS_EXECVEAT) && ret == 0)
		return 0; /* written at sched_process_exec */
	__u64 a[5];
	ab_args(regs, compat, a);
	struct ab_call c = {.session = session};
	if (!ab_fill_call(sys, a, &c))
		return 0;
	c.self = sys == AB_SYS_CHDIR && ret == 0;
	ab_emit(&c, ret);
	return 0;
}

/* "/dev/fd/" as a little-endian word. */
#define AB_DEVFD_PREFIX 0x2f64662f7665642fULL

SEC("tp_btf/sched_process_exec")
int BPF_PROG(ab_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u64 session = ab_session(bpf_get_current_pid_tgid() >> 32);
	if (!session)
		return 0;
	struct ab_event *e = ab_header(session, AB_OP_EXEC, 0, 0);
	if (!e)
		return 0;
	e->ppid = BPF_CORE_READ(p, real_parent, tgid);
	long n = bpf_probe_read_kernel_str(&e->data[0], AB_PATH_MAX, BPF_CORE_READ(bprm, filename));
	if (n < 0) {
		e->info |= AB_INFO_FAULT;
		n = 0;
	}
	n &= (AB_PATH_MAX * 2 - 1);
	struct fs_struct *fs = BPF_CORE_READ(p, fs);
	__u64 dent = 0, mnt = 0;
	if (n > 8 && *(__u64 *)e->data == AB_DEVFD_PREFIX) {
		/* execveat(fd, name) or fexecve: the descriptor may be closed by
		 * now (O_CLOEXEC), so report the file that was executed (the
		 * script, not its interpreter). */
		struct file *f = BPF_CORE_READ(bprm, file);
		if (bpf_core_field_exists(bprm->executable) && BPF_CORE_READ(bprm, executable))
			f = BPF_CORE_READ(bprm, executable);
		dent = (__u64)BPF_CORE_READ(f, f_path.dentry);
		mnt = (__u64)BPF_CORE_READ(f, f_path.mnt);
		e->info |= AB_INFO_DEVFD;
		n = 0;
	} else if (n < 2 || e->data[0] != '/') {
		dent = (__u64)BPF_CORE_READ(fs, pwd.dentry);
		mnt = (__u64)BPF_CORE_READ(fs, pwd.mnt);
	}
	e->len[0] = n;
	__u32 off = n;
	if (dent) {
		e->len[1] = ab_walk_dir(e, off, dent, mnt, (__u64)BPF_CORE_READ(fs, root.dentry),
					(__u64)BPF_CORE_READ(fs, root.mnt));
		off += e->len[1];
	}
	ab_submit(e, off);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(ab_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ctgid = BPF_CORE_READ(child, tgid);
	__u32 cpid = BPF_CORE_READ(child, pid);
	if (cpid != ctgid)
		return 0; /* a new thread: its process is already a member */
	__u64 s = ab_session(BPF_CORE_READ(parent, tgid));
	if (!s)
		return 0;
	if (!bpf_map_lookup_elem(&ab_sessions, &s))
		return 0; /* the session is closing */
	if (bpf_map_update_elem(&ab_procs, &ctgid, &s, BPF_ANY)) {
		ab_lose(s, AB_CNT_PROCS);
		return 0;
	}
	struct ab_event *e = ab_header(s, AB_OP_FORK, 0, 0);
	if (!e)
		return 0;
	e->ppid = BPF_CORE_READ(child, real_parent, tgid);
	e->pid = cpid;
	e->tgid = ctgid;
	BPF_CORE_READ_INTO(&e->comm, child, comm);
	ab_submit(e, 0);
	return 0;
}

#define AB_SIGNAL_GROUP_EXIT 0x00000004

/* group_dead is an argument of the tracepoint since Linux 6.16. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(ab_exit, struct task_struct *p, bool group_dead)
{
	if (!group_dead)
		return 0;
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u64 s = ab_session(tgid);
	if (!s)
		return 0;
	int code = BPF_CORE_READ(p, exit_code);
	struct signal_struct *sig = BPF_CORE_READ(p, signal);
	if (BPF_CORE_READ(sig, flags) & AB_SIGNAL_GROUP_EXIT)
		code = BPF_CORE_READ(sig, group_exit_code);
	int status = (code & 0x7f) ? 128 + (code & 0x7f) : (code >> 8) & 0xff;
	struct ab_event *e = ab_header(s, AB_OP_EXIT, status, 0);
	if (e) {
		e->ppid = BPF_CORE_READ(p, real_parent, tgid);
		ab_submit(e, 0);
	}
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
