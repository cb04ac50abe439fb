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

/* ab_vma_cb stores the file of the mapping found (NULL: anonymous). */
static long ab_vma_cb(struct task_struct *task, struct vm_area_struct *vma, void *ctx)
{
	*(__u64 *)ctx = (__u64)BPF_CORE_READ(vma, vm_file);
	return 0;
}

/* ab_call_file returns the file an event's real path names: the file a
 * successful open's descriptor refers to; for an mmap, the file of its
 * descriptor (on overlayfs the mapping holds the layer's backing file,
 * whose path lies outside the process's root: the descriptor's is the
 * file the process opened and sees), else of the mapping it made; for an
 * mprotect, the file of the mapping it changed. NULL: none (an mmap or
 * mprotect of anonymous memory). */
static __always_inline struct file *ab_call_file(struct task_struct *task, struct ab_call *c, long ret)
{
	if (c->op == AB_OP_OPEN)
		return ret >= 0 ? ab_fd_file(task, ret) : NULL;
	if (c->dfd1 >= 0) {
		struct file *fd = ab_fd_file(task, c->dfd1);
		if (fd)
			return fd;
	}
	__u64 f = 0;
	if (c->vaddr)
		bpf_find_vma(task, c->vaddr, ab_vma_cb, &f, 0);
	return (void *)f;
}

/* ab_emit writes the event of a decoded syscall with its result. It is a
 * global function, so the verifier checks it once for any call rather
 * than once per syscall kind. */
__noinline int ab_emit(struct ab_call *c, long ret)
{
	if (!c)
		return 0;
	struct task_struct *task = bpf_get_current_task_btf();
	struct file *f = NULL;
	int real = (c->op == AB_OP_OPEN && ret >= 0) || c->op == AB_OP_MMAP;
	if (real) {
		/* The file the descriptor now refers to, or that is mapped:
		 * what was opened, whatever the name (or the user memory
		 * holding it) says. */
		f = ab_call_file(task, c, ret);
		if (!f && c->op == AB_OP_MMAP)
			return 0; /* anonymous memory: not a file access */
	}
	struct ab_event *e = ab_header(c->session, c->op, ret, c->info);
	if (!e)
		return 0;
	e->sys = c->sys;
	ab_parent(e, task);
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
	} else if (c->kind != AB_KIND_NONE) {
		off = ab_user_path(e, 0, c, 0);
		if (c->ptr2 && c->kind != AB_KIND_HOW)
			off = ab_user_path(e, off, c, 1);
	}
	if (real) {
		struct fs_struct *fs = BPF_CORE_READ(task, fs);
		e->len[4] = ab_real(e, off, (__u64)f, (__u64)BPF_CORE_READ(fs, root.dentry),
				    (__u64)BPF_CORE_READ(fs, root.mnt));
		off += e->len[4];
	}
	ab_submit(e, off);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(ab_sys_exit, struct pt_regs *regs, long ret)
{
	long nr = ab_sys_nr(regs);
	if (nr < 0)
		return 0;
	__u64 session = ab_session(bpf_get_current_pid_tgid() >> 32);
	if (!session)
		return 0;
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 a[5] = {};
	int sys = ab_sys_decode(regs, task, nr, a);
	if (sys == AB_SYS_NONE)
		return 0;
	if ((sys == AB_SYS_EXECVE || sys == AB_SYS_EXECVEAT) && ret == 0)
		return 0; /* written at sched_process_exec */
	struct ab_call c = {.session = session};
	if (!ab_fill_call(sys, a, ret, &c))
		return 0;
	c.self = sys == AB_SYS_CHDIR && ret == 0;
	ab_emit(&c, ret);
	return 0;
}

/* What ab_prepare saw of a traced exec, by bprm, for ab_exec: the file
 * the caller executed when binfmt_script or binfmt_misc replaced it with
 * an interpreter (0: not known, or not replaced). An exec that ab_prepare
 * did not see began before its process was tracked. A failed exec leaves
 * its entry behind: LRU. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u64);
} ab_execfile SEC(".maps");

/* Set by user space: the kernel has the sched_prepare_exec tracepoint
 * (Linux 6.10) and ab_prepare is attached; the address of ____fput, the
 * task work of a file's last fput (0: unknown). */
const volatile __u8 ab_have_prepare = 0;
const volatile __u64 ab_fput_fn = 0;

#define AB_TASK_WORKS_MAX 8

/* Fired once per exec, at the point of no return, before /proc/PID/exe
 * changes. When a binary handler replaced the file (bprm->interp is no
 * longer the name the caller gave), the file the caller executed has just
 * had its last fput, whose release is task work queued on the task and
 * run on its return to user space: the struct file is still whole, and
 * its work is the last ____fput queued by this exec (the list is LIFO:
 * with a chain of scripts, the outermost is the deepest). */
SEC("tp_btf/sched_prepare_exec")
int BPF_PROG(ab_prepare, struct task_struct *p, struct linux_binprm *bprm)
{
	if (!ab_session(bpf_get_current_pid_tgid() >> 32))
		return 0;
	__u64 key = (__u64)bprm, f = 0;
	if (ab_fput_fn && BPF_CORE_READ(bprm, interp) != BPF_CORE_READ(bprm, filename)) {
		struct callback_head *w = BPF_CORE_READ(p, task_works);
		for (int i = 0; i < AB_TASK_WORKS_MAX && w; i++) {
			if ((__u64)BPF_CORE_READ(w, func) == ab_fput_fn)
				f = (__u64)w - bpf_core_field_offset(struct file, f_task_work);
			w = BPF_CORE_READ(w, next);
		}
	}
	bpf_map_update_elem(&ab_execfile, &key, &f, BPF_ANY);
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
	ab_parent(e, p);
	long n = bpf_probe_read_kernel_str(&e->data[0], AB_PATH_MAX, BPF_CORE_READ(bprm, filename));
	if (n < 0) {
		e->info |= AB_INFO_FAULT;
		n = 0;
	}
	n &= (AB_PATH_MAX * 2 - 1);
	struct fs_struct *fs = BPF_CORE_READ(p, fs);
	__u64 dent = 0, mnt = 0;
	/* run is the program now running; f the file the caller executed,
	 * which a binary handler replaced when bprm->interp changed (a #!
	 * script, binfmt_misc): then ab_prepare found it (or binfmt_misc's
	 * O flag kept it in bprm->executable), else it is unknown (NULL). */
	struct file *run = BPF_CORE_READ(bprm, file);
	struct file *f = run;
	int replaced = BPF_CORE_READ(bprm, interp) != BPF_CORE_READ(bprm, filename);
	if (replaced)
		f = NULL;
	if (ab_have_prepare) {
		__u64 key = (__u64)bprm;
		__u64 *seen = bpf_map_lookup_elem(&ab_execfile, &key);
		if (seen) {
			if (*seen)
				f = (void *)*seen;
			bpf_map_delete_elem(&ab_execfile, &key);
		} else {
			/* ab_prepare did not see it: the exec began before the
			 * process was tracked (a launcher's own exec, e.g. runc's
			 * init becoming sandbox-init, raced by its tracking). */
			e->info |= AB_INFO_PRETRACK;
		}
	}
	if (bpf_core_field_exists(bprm->executable) && BPF_CORE_READ(bprm, executable))
		f = BPF_CORE_READ(bprm, executable);
	if (n > 8 && *(__u64 *)e->data == AB_DEVFD_PREFIX) {
		/* execveat(fd, name) or fexecve: the descriptor may be closed by
		 * now (O_CLOEXEC), so report the file that was executed. */
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
	__u64 rootd = (__u64)BPF_CORE_READ(fs, root.dentry), rootm = (__u64)BPF_CORE_READ(fs, root.mnt);
	e->len[4] = ab_real(e, off, (__u64)f, rootd, rootm);
	off += e->len[4];
	if (replaced || f != run) {
		e->len5 = ab_interp(e, off, (__u64)run, rootd, rootm);
		off += e->len5;
	}
	struct mm_struct *mm = BPF_CORE_READ(p, mm);
	e->len6 = ab_ldenv(e, off, BPF_CORE_READ(mm, env_start), BPF_CORE_READ(mm, env_end));
	off += e->len6;
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
	ab_parent(e, child);
	e->start = BPF_CORE_READ(child, start_time); /* the child leads its group */
	e->pid = cpid;
	e->tgid = ctgid;
	BPF_CORE_READ_INTO(&e->comm, child, comm);
	ab_submit(e, 0);
	return 0;
}

#define AB_SIGNAL_GROUP_EXIT 0x00000004

/* The process exits when its last thread does: do_exit has decremented
 * signal->live before the tracepoint, so the thread that finds it at 0 is
 * the last (the tracepoint's group_dead argument exists only since Linux
 * 6.16). Two threads dying together may both see 0: removing the process
 * from the membership map decides which one reports. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(ab_exit, struct task_struct *p)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u64 s = ab_session(tgid);
	if (!s)
		return 0;
	struct signal_struct *sig = BPF_CORE_READ(p, signal);
	if (BPF_CORE_READ(sig, live.counter) != 0)
		return 0;
	if (bpf_map_delete_elem(&ab_procs, &tgid))
		return 0; /* another thread of the process reported it */
	int code = BPF_CORE_READ(p, exit_code);
	if (BPF_CORE_READ(sig, flags) & AB_SIGNAL_GROUP_EXIT)
		code = BPF_CORE_READ(sig, group_exit_code);
	int status = (code & 0x7f) ? 128 + (code & 0x7f) : (code >> 8) & 0xff;
	struct ab_event *e = ab_header(s, AB_OP_EXIT, status, 0);
	if (e) {
		ab_parent(e, p);
		ab_submit(e, 0);
	}
	return 0;
}

/* ab_sync writes a drain marker: once user space reads it, every event
 * committed before the BPF_PROG_RUN call has been read. */
SEC("syscall")
int ab_sync(struct ab_sync_args *args)
{
	/* On the stack: a sleepable program must not use the per-CPU
	 * scratch, which a traced task preempting it could overwrite. */
	__u64 hdr[AB_HDR_SIZE / 8] = {};
	struct ab_event *e = (void *)hdr;
	e->session = args->session;
	e->ts = args->seq;
	e->op = AB_OP_SYNC;
	return bpf_ringbuf_output(&ab_events, hdr, sizeof(hdr), BPF_RB_FORCE_WAKEUP) ? 1 : 0;
}

#define AB_IORING_OP_OPENAT 18
#define AB_IORING_OP_OPENAT2 28
#define AB_IORING_OP_RENAMEAT 35
#define AB_IORING_OP_UNLINKAT 36
#define AB_IORING_OP_MKDIRAT 37
#define AB_IORING_OP_SYMLINKAT 38
#define AB_IORING_OP_LINKAT 39

/* ab_uring reports the path operations submitted through io_uring by a
 * traced process (from its own task, an SQPOLL thread or an io worker:
 * all share its tgid). The request has been prepared, so its names are
 * kernel copies that user space can no longer change. The result comes
 * later, asynchronously: the event says AB_INFO_URING, ret is 0. */
SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(ab_uring, struct io_kiocb *req)
{
	__u64 session = ab_session(bpf_get_current_pid_tgid() >> 32);
	if (!session)
		return 0;
	__u8 opcode = BPF_CORE_READ(req, opcode);
	__u8 op;
	__u16 info = AB_INFO_URING;
	struct filename *n1 = NULL, *n2 = NULL;
	int dfd1 = AB_AT_FDCWD, dfd2 = AB_AT_FDCWD, mode2 = AB_KP_SECOND;
	__u64 flags = 0;
	void *cmd = req; /* the request's command data starts the struct */
	switch (opcode) {
	case AB_IORING_OP_OPENAT:
	case AB_IORING_OP_OPENAT2: {
		struct io_open *o = cmd;
		op = AB_OP_OPEN, info |= AB_INFO_FLAGS;
		n1 = BPF_CORE_READ(o, filename), dfd1 = BPF_CORE_READ(o, dfd);
		flags = BPF_CORE_READ(o, how.flags);
		break;
	}
	case AB_IORING_OP_UNLINKAT: {
		struct io_unlink *u = cmd;
		op = (BPF_CORE_READ(u, flags) & AB_AT_REMOVEDIR) ? AB_OP_RMDIR : AB_OP_UNLINK;
		n1 = BPF_CORE_READ(u, filename), dfd1 = BPF_CORE_READ(u, dfd);
		break;
	}
	case AB_IORING_OP_MKDIRAT: {
		struct io_mkdir *m = cmd;
		op = AB_OP_MKDIR;
		n1 = BPF_CORE_READ(m, filename), dfd1 = BPF_CORE_READ(m, dfd);
		break;
	}
	case AB_IORING_OP_RENAMEAT:
	case AB_IORING_OP_LINKAT: {
		struct io_rename *r = cmd; /* io_link has the same layout */
		op = opcode == AB_IORING_OP_LINKAT ? AB_OP_LINK : AB_OP_RENAME;
		n1 = BPF_CORE_READ(r, oldpath), dfd1 = BPF_CORE_READ(r, old_dfd);
		n2 = BPF_CORE_READ(r, newpath), dfd2 = BPF_CORE_READ(r, new_dfd);
		break;
	}
	case AB_IORING_OP_SYMLINKAT: {
		struct io_link *l = cmd; /* path 1: the new link; path 2: its target */
		op = AB_OP_SYMLINK, info |= AB_INFO_RAW2, mode2 |= AB_KP_RAW;
		n1 = BPF_CORE_READ(l, newpath), dfd1 = BPF_CORE_READ(l, new_dfd);
		n2 = BPF_CORE_READ(l, oldpath);
		break;
	}
	default:
		return 0;
	}
	struct ab_event *e = ab_header(session, op, 0, info);
	if (!e)
		return 0;
	ab_parent(e, bpf_get_current_task_btf());
	e->flags = flags;
	__u32 off = ab_kernel_path(e, 0, (__u64)n1, dfd1, 0);
	if (n2)
		off = ab_kernel_path(e, off, (__u64)n2, dfd2, mode2);
	ab_submit(e, off);
	return 0;
}
