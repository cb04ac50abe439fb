/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sys_exit side: assembling an event in the per-CPU scratch buffer (header,
 * user strings, base-directory walks) and copying it to the ring buffer.
 */
#ifndef AB_EVENT_H
#define AB_EVENT_H

/* Unread bytes in the ring buffer at which a record wakes the reader;
 * set by user space at load time. */
const volatile __u64 ab_wake_bytes = 65536;

/* ab_header starts the scratch event for the current task; the caller
 * sets ppid (see ab_ppid). */
static __always_inline struct ab_event *ab_header(__u64 session, __u8 op, __s64 ret, __u16 info)
{
	__u32 zero = 0;
	struct ab_event *e = bpf_map_lookup_elem(&ab_scratch, &zero);
	if (!e)
		return NULL;
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	e->session = session;
	e->ts = bpf_ktime_get_ns();
	e->ret = ret;
	e->flags = 0;
	e->pid = (__u32)pid_tgid;
	e->tgid = pid_tgid >> 32;
	e->op = op;
	e->info = info;
	e->len[0] = e->len[1] = e->len[2] = e->len[3] = e->len[4] = 0;
	e->len5 = e->len6 = 0;
	e->sys = 0;
	e->ino = 0;
	e->dev = 0;
	struct task_struct *task = bpf_get_current_task_btf();
	e->start = task->group_leader->start_time;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	return e;
}

/* ab_parent sets the parent fields (ppid, pstart) of e from task p. */
static __always_inline void ab_parent(struct ab_event *e, struct task_struct *p)
{
	struct task_struct *parent = BPF_CORE_READ(p, real_parent);
	e->ppid = BPF_CORE_READ(parent, tgid);
	e->pstart = BPF_CORE_READ(parent, group_leader, start_time);
}

/* ab_submit copies the header and the first len data bytes of e to the
 * ring buffer, counting a failure against the session. */
static __always_inline void ab_submit(struct ab_event *e, __u32 len)
{
	__u64 size = (__u64)len + offsetof(struct ab_event, data);
	if (size > sizeof(*e))
		size = sizeof(*e);
	asm volatile("" : "+r"(size)); /* keep the bounded register for the call */
	if (size > sizeof(*e))
		return;
	/* Waking the reader for every record costs more than the record:
	 * wake it only once a batch has accumulated (it also polls). */
	__u64 flags = BPF_RB_NO_WAKEUP;
	if (bpf_ringbuf_query(&ab_events, BPF_RB_AVAIL_DATA) >= ab_wake_bytes)
		flags = BPF_RB_FORCE_WAKEUP;
	if (bpf_ringbuf_output(&ab_events, e, size, flags))
		ab_lose(e->session, AB_CNT_RINGBUF);
}

/* ab_user_path writes the call's path 1 (or, if second, path 2) at off
 * (len[0] or len[2]) and, when it is relative, its base directory after it
 * (len[1] or len[3]), resolving the call's bases first if needed; it
 * returns the new offset. With c->self, a relative path 1 is replaced by
 * its base (the cwd a chdir moved to). A symlink target (AB_INFO_RAW2)
 * is relative to the link, not to a base, and is not walked. A global
 * function: the verifier checks it once, not once per call site. */
__noinline __u32 ab_user_path(struct ab_event *e, __u32 off, struct ab_call *c, int second)
{
	if (!e || !c)
		return off;
	int slot = second ? 2 : 0;
	__u64 ptr = second ? c->ptr2 : c->ptr1;
	int walk = !second || !(c->info & AB_INFO_RAW2);
	if (off > AB_DATA_MASK) {
		e->info |= AB_INFO_TRUNC;
		return off;
	}
	if (!ptr) { /* a NULL name (EFAULT): not the base directory */
		e->info |= AB_INFO_FAULT;
		return off;
	}
	long n = bpf_probe_read_user_str(&e->data[AB_BOUNDED(off)], AB_PATH_MAX, (void *)ptr);
	if (n < 0) {
		e->info |= AB_INFO_FAULT;
		return off; /* no name: do not report the base as the path */
	}
	n &= (AB_PATH_MAX * 2 - 1);
	char first = n > 1 ? e->data[AB_BOUNDED(off)] : 0;
	if (first == '/' || !walk) {
		if (slot == 0)
			e->len[0] = n;
		else
			e->len[2] = n;
		return off + n;
	}
	if (slot == 0 && c->self)
		n = 0;
	off += n;
	if (slot == 0)
		e->len[0] = n;
	else
		e->len[2] = n;
	if (!c->based)
		ab_resolve(bpf_get_current_task_btf(), c);
	__u64 dent = slot == 0 ? c->dent1 : c->dent2;
	__u64 mnt = slot == 0 ? c->mnt1 : c->mnt2;
	if (!dent) {
		e->info |= AB_INFO_NOBASE;
		return off;
	}
	__u32 d = ab_walk_dir(e, off, dent, mnt, c->rootd, c->rootm);
	if (slot == 0)
		e->len[1] = d;
	else
		e->len[3] = d;
	return off + d;
}

/* State of an environment scan (ab_ldenv), per CPU, like ab_walkstate. */
struct ab_envscan {
	__u64 ptr;  /* next byte of the environment to read */
	__u64 end;  /* mm->env_end */
	__u32 off;  /* next write offset in ab_event.data */
	__u8 cont;  /* ptr is inside a string longer than one read */
	__u8 count; /* entries kept */
	__u8 trunc; /* an entry was cut, or not every string was scanned */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ab_envscan);
} ab_envstate SEC(".maps");

/* ab_is_ldvar says whether s starts with LD_PRELOAD=, LD_LIBRARY_PATH= or
 * LD_AUDIT=. s is NUL-terminated: the comparison stops at its end. */
static __always_inline int ab_is_ldvar(const char *s)
{
	if (s[0] != 'L' || s[1] != 'D' || s[2] != '_')
		return 0;
	if (s[3] == 'P')
		return s[4] == 'R' && s[5] == 'E' && s[6] == 'L' && s[7] == 'O' && s[8] == 'A' &&
		       s[9] == 'D' && s[10] == '=';
	if (s[3] == 'A')
		return s[4] == 'U' && s[5] == 'D' && s[6] == 'I' && s[7] == 'T' && s[8] == '=';
	return s[3] == 'L' && s[4] == 'I' && s[5] == 'B' && s[6] == 'R' && s[7] == 'A' &&
	       s[8] == 'R' && s[9] == 'Y' && s[10] == '_' && s[11] == 'P' && s[12] == 'A' &&
	       s[13] == 'T' && s[14] == 'H' && s[15] == '=';
}

/* ab_env_step reads one string of the environment (or the next
 * AB_ENV_CHUNK bytes of a longer one) into the event at the scan's
 * offset, and keeps it there when it is an LD_ variable of interest. */
static long ab_env_step(__u32 i, void *ctx)
{
	__u32 zero = 0;
	struct ab_envscan *s = bpf_map_lookup_elem(&ab_envstate, &zero);
	struct ab_event *e = bpf_map_lookup_elem(&ab_scratch, &zero);
	if (!s || !e || s->ptr >= s->end)
		return 1;
	if (s->off > AB_DATA_MASK) {
		s->trunc = 1;
		return 1;
	}
	char *dst = &e->data[AB_BOUNDED(s->off)];
	long n = bpf_probe_read_user_str(dst, AB_ENV_CHUNK, (void *)s->ptr);
	if (n <= 0) {
		s->trunc = 1;
		return 1;
	}
	int start = !s->cont;
	/* A full read may have cut the string: go on from its last byte
	 * (the NUL the read put there), inside the same string. */
	s->cont = n == AB_ENV_CHUNK;
	s->ptr += s->cont ? n - 1 : n;
	if (!start || !ab_is_ldvar(dst))
		return 0;
	if (s->count >= AB_LDENV_MAX) {
		s->trunc = 1;
		return 0;
	}
	if (n > AB_LDENV_LEN || s->cont) {
		dst[AB_LDENV_LEN - 1] = 0;
		n = AB_LDENV_LEN;
		s->trunc = 1;
	}
	s->count++;
	s->off += n;
	return 0;
}

/* ab_ldenv writes, at off, the first AB_LDENV_MAX LD_PRELOAD=,
 * LD_LIBRARY_PATH= and LD_AUDIT= entries of the environment [start, end)
 * of the current task (the new program's, at sched_process_exec: its
 * strings are on its new stack), each NUL-terminated and cut to
 * AB_LDENV_LEN bytes; it returns the bytes written. An entry cut, a
 * further entry, or an environment longer than the scan's bound sets
 * AB_INFO_LDTRUNC. */
static __always_inline __u32 ab_ldenv(struct ab_event *e, __u32 off, __u64 start, __u64 end)
{
	__u32 zero = 0;
	struct ab_envscan *s = bpf_map_lookup_elem(&ab_envstate, &zero);
	if (!s || start >= end)
		return 0;
	s->ptr = start;
	s->end = end;
	s->off = off;
	s->cont = 0;
	s->count = 0;
	s->trunc = 0;
	bpf_loop(AB_ENV_STEPS, ab_env_step, NULL, 0);
	if (s->trunc || s->ptr < s->end)
		e->info |= AB_INFO_LDTRUNC;
	return s->off - off;
}

#endif

#define AB_KP_SECOND 1 /* ab_kernel_path: write path 2 (parts 2, 3), not path 1 */
#define AB_KP_RAW 2    /* ab_kernel_path: do not walk a base directory */

/* ab_kernel_path writes a path that the kernel has already copied in
 * (an io_uring request's struct filename) at off as path 1 or 2 (mode),
 * and its base directory (descriptor dfd of the current task) after it
 * when it is relative; it returns the new offset. */
__noinline __u32 ab_kernel_path(struct ab_event *e, __u32 off, __u64 filename, int dfd, int mode)
{
	struct filename *fn = (void *)filename;
	int slot = (mode & AB_KP_SECOND) ? 2 : 0;
	int walk = !(mode & AB_KP_RAW);
	if (!e)
		return off;
	if (!fn || off > AB_DATA_MASK) {
		e->info |= AB_INFO_FAULT;
		return off;
	}
	const char *name = BPF_CORE_READ(fn, name);
	long n = bpf_probe_read_kernel_str(&e->data[AB_BOUNDED(off)], AB_PATH_MAX, name);
	if (n < 0) {
		e->info |= AB_INFO_FAULT;
		return off;
	}
	n &= (AB_PATH_MAX * 2 - 1);
	char first = n > 1 ? e->data[AB_BOUNDED(off)] : 0;
	if (slot == 0)
		e->len[0] = n;
	else
		e->len[2] = n;
	off += n;
	if (first == '/' || !walk)
		return off;
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 dent = 0, mnt = 0;
	ab_base(task, dfd, &dent, &mnt);
	if (!dent) {
		e->info |= AB_INFO_NOBASE;
		return off;
	}
	struct fs_struct *fs = BPF_CORE_READ(task, fs);
	__u32 d = ab_walk_dir(e, off, dent, mnt, (__u64)BPF_CORE_READ(fs, root.dentry),
			      (__u64)BPF_CORE_READ(fs, root.mnt));
	if (slot == 0)
		e->len[1] = d;
	else
		e->len[3] = d;
	return off + d;
}
