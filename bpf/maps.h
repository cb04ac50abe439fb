/* SPDX-License-Identifier: GPL-2.0 */
/* Maps of the authbench tracer. Sizes marked "set by user space" are
 * overridden by tracer.Load before the collection is created. */
#ifndef AB_MAPS_H
#define AB_MAPS_H

/* Tree membership: tgid -> session id. User space inserts a session's
 * root; ab_fork copies the parent's entry to the child; ab_exit removes
 * it. Every program starts with one lookup here. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536); /* set by user space */
	__type(key, __u32);
	__type(value, __u64);
} ab_procs SEC(".maps");

/* Live sessions: session id -> 1. A child joins a session at fork only
 * while the session is live, so closing a session cannot race a fork. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, __u32);
} ab_sessions SEC(".maps");

/* Events lost per session (ring full, maps full), per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, __u64);
} ab_lost SEC(".maps");

/* Global per-CPU counters by cause (enum ab_counter). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, AB_CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} ab_counters SEC(".maps");

/* Scratch space where an event is assembled before it is copied to the
 * ring buffer with its exact length. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ab_event);
} ab_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 32 << 20); /* set by user space */
} ab_events SEC(".maps");

static __always_inline void ab_count(__u32 idx)
{
	__u64 *c = bpf_map_lookup_elem(&ab_counters, &idx);
	if (c)
		(*c)++;
}

/* ab_lose records that an event of session was dropped for cause idx. */
static __always_inline void ab_lose(__u64 session, __u32 idx)
{
	__u64 *c = bpf_map_lookup_elem(&ab_lost, &session);
	if (c)
		(*c)++;
	ab_count(idx);
}

#endif
