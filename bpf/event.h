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
static __always_inline struct ab_event *ab_header(__u64 session, __u8 op, __s64 ret, __u8 info)
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
	e->len[0] = e->len[1] = e->len[2] = e->len[3] = 0;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	return e;
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
	long n = 0;
	if (ptr) {
		n = bpf_probe_read_user_str(&e->data[AB_BOUNDED(off)], AB_PATH_MAX, (void *)ptr);
		if (n < 0) {
			e->info |= AB_INFO_FAULT;
			return off; /* no name: do not report the base as the path */
		}
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

#endif
