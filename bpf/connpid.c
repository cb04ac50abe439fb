// SPDX-License-Identifier: GPL-2.0
//go:build ignore

/*
 * authbench egress proxy: who connected each socket of a run.
 *
 * cgroup/connect4 and cgroup/connect6, attached to the root of the
 * cgroup v2 hierarchy, run in the context of every connect() on the
 * machine. For a socket of a network namespace the proxy serves (its
 * cookie in ab_cp_netns), they record the connecting process (its tgid
 * in the PID namespace of the loader, ab_cp_pidns_dev and _ino; nothing
 * for a process not in it) under the socket's cookie, the same cookie
 * sock_diag reports for the connection. Every connect is allowed: the
 * programs only observe.
 */
#include "include/vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

/* ab_cp_netns holds the network namespaces (by cookie) of running proxies. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u8);
} ab_cp_netns SEC(".maps");

/* ab_cp_pids maps a connected socket's cookie to its connecting tgid. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, __u32);
} ab_cp_pids SEC(".maps");

/* The loader's PID namespace: the device and inode of its nsfs file. */
volatile const __u64 ab_cp_pidns_dev = 0;
volatile const __u64 ab_cp_pidns_ino = 0;

static __always_inline int ab_note(struct bpf_sock_addr *ctx)
{
	__u64 ns = bpf_get_netns_cookie(ctx);
	if (!bpf_map_lookup_elem(&ab_cp_netns, &ns))
		return 1;
	struct bpf_pidns_info id = {};
	if (bpf_get_ns_current_pid_tgid(ab_cp_pidns_dev, ab_cp_pidns_ino, &id, sizeof(id)))
		return 1;
	__u64 cookie = bpf_get_socket_cookie(ctx);
	__u32 tgid = id.tgid;
	bpf_map_update_elem(&ab_cp_pids, &cookie, &tgid, BPF_ANY);
	return 1;
}

SEC("cgroup/connect4")
int ab_cp_connect4(struct bpf_sock_addr *ctx) { return ab_note(ctx); }

SEC("cgroup/connect6")
int ab_cp_connect6(struct bpf_sock_addr *ctx) { return ab_note(ctx); }
