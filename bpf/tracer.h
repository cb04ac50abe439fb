/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared definitions of the authbench tracer: the record layout written to
 * the ring buffer (decoded by tracer/decode.go, which pins the offsets in a
 * test) and the operation and info codes.
 */
#ifndef AB_TRACER_H
#define AB_TRACER_H

/* Operations; tracer/event.go maps them to the JSON "op" names. */
enum ab_op {
	AB_OP_OPEN = 1,
	AB_OP_EXEC = 2,
	AB_OP_MKDIR = 3,
	AB_OP_UNLINK = 4,
	AB_OP_RMDIR = 5,
	AB_OP_RENAME = 6,
	AB_OP_LINK = 7,
	AB_OP_SYMLINK = 8,
	AB_OP_TRUNCATE = 9,
	AB_OP_CHDIR = 10,
	AB_OP_FORK = 11,
	AB_OP_EXIT = 12,
	AB_OP_SYNC = 13, /* drain marker written by ab_sync, never a process event */
};

/* Bits of ab_event.info. */
enum ab_info {
	AB_INFO_FLAGS = 1 << 0,     /* flags holds open flags */
	AB_INFO_TRUNC = 1 << 1,     /* a path did not fit or the walk hit its bound */
	AB_INFO_FAULT = 1 << 2,     /* a user string could not be read */
	AB_INFO_DEVFD = 1 << 3,     /* exec of "/dev/fd/N[/name]": the path is the walked file */
	AB_INFO_RAW2 = 1 << 4,      /* path 2 is relative to path 1's directory (symlink target) */
	AB_INFO_NOBASE = 1 << 5,    /* the base directory (bad dirfd) is unknown */
};

/* Indices of the global per-CPU counters (map ab_counters). */
enum ab_counter {
	AB_CNT_RINGBUF = 0, /* ring buffer full: event dropped */
	AB_CNT_PROCS = 1,   /* membership map full: child not tracked */
	AB_CNT_MAX = 2,
};

#define AB_COMM_LEN 16
#define AB_NAME_MAX 256          /* NAME_MAX + NUL: one dentry name */
#define AB_PATH_MAX 4096         /* PATH_MAX: one user string */
#define AB_DIR_MAX 4096          /* bytes of directory names per path */
#define AB_WALK_MAX 256          /* dentries and mounts visited per path */
#define AB_DATA_MASK 0x3fff      /* every write starts below this offset */
#define AB_DATA_SZ (AB_DATA_MASK + 1 + AB_PATH_MAX)

/* AB_BOUNDED masks an offset in a way the compiler cannot drop, so the
 * verifier always sees the bound (a preceding range check on another
 * register copy is not enough). */
#define AB_BOUNDED(off)                                                     \
	({                                                                  \
		__u64 __v = (off);                                          \
		asm volatile("%[v] &= %[m]" : [v] "+r"(__v) : [m] "i"(AB_DATA_MASK)); \
		__v;                                                        \
	})

/*
 * One ring-buffer record: the header below, then len[0] bytes of the
 * first path as given (NUL-terminated), len[1] bytes of the first base
 * directory as NUL-terminated names from the leaf up to the process root,
 * then the same two parts for the second path.
 */
struct ab_event {
	__u64 session;
	__u64 ts;
	__s64 ret;
	__u64 flags;
	__u32 pid;
	__u32 tgid;
	__u32 ppid;
	__u8 op;
	__u8 info;
	__u16 len[4];
	char comm[AB_COMM_LEN];
	__u16 pad;
	char data[AB_DATA_SZ];
};

/* Argument of the ab_sync program (BPF_PROG_RUN context). */
struct ab_sync_args {
	__u64 session;
	__u64 seq;
};

#endif
