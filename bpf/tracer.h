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
	AB_OP_URING_SETUP = 14, /* io_uring_setup: the process asked for an io_uring */
	AB_OP_MMAP = 15,    /* mmap/mprotect with PROT_EXEC of a file-backed mapping */
	AB_OP_CHOWN = 16,   /* capability family: chown, fchown, lchown, fchownat */
	AB_OP_CHMOD = 17,   /* chmod, fchmod, fchmodat, fchmodat2 */
	AB_OP_SETXATTR = 18, /* set and remove xattr families */
	AB_OP_MKNOD = 19,   /* mknod, mknodat */
	AB_OP_SETID = 20,   /* setuid, setgid, setre*, setres*, setgroups, setfs* */
};

/* Bits of ab_event.info. */
enum ab_info {
	AB_INFO_FLAGS = 1 << 0,     /* flags holds open flags */
	AB_INFO_TRUNC = 1 << 1,     /* a path did not fit or the walk hit its bound */
	AB_INFO_FAULT = 1 << 2,     /* a user string could not be read */
	AB_INFO_DEVFD = 1 << 3,     /* exec of "/dev/fd/N[/name]": the path is the walked file */
	AB_INFO_RAW2 = 1 << 4,      /* path 2 is relative to path 1's directory (symlink target) */
	AB_INFO_NOBASE = 1 << 5,    /* the base directory (bad dirfd) is unknown */
	AB_INFO_REAL = 1 << 6,      /* part 4 (real path), dev and ino describe the file opened */
	AB_INFO_RTRUNC = 1 << 7,    /* the real path did not fit (part 4 is not a whole path) */
	AB_INFO_DELETED = 1 << 8,   /* the file opened has no name any more (unlinked) */
	AB_INFO_UNREACH = 1 << 9,   /* the file is not below the task's root (anonymous, other mount ns) */
	AB_INFO_URING = 1 << 10,    /* an io_uring submission: ret is not the operation's result */
	AB_INFO_NONAME = 1 << 11,   /* the call names no path (open_by_handle_at) */
	AB_INFO_ITRUNC = 1 << 12,   /* exec: the interpreter's real path did not fit */
	AB_INFO_LDTRUNC = 1 << 13,  /* exec: ld_env entries were cut or not all scanned */
	AB_INFO_PRETRACK = 1 << 14, /* exec: it began before the process was tracked */
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
#define AB_LDENV_MAX 3           /* ld_env entries per exec */
#define AB_LDENV_LEN 256         /* bytes per ld_env entry, NUL included */
#define AB_ENV_CHUNK 512         /* bytes read per step of the environment scan */
#define AB_ENV_STEPS 1024        /* steps of the environment scan */
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
 * then the same two parts for the second path, then len[4] bytes of the
 * real path of the file opened, mapped or executed (names from the file
 * itself up to the root, as for a base directory); for exec, len5 bytes of
 * the real path of the interpreter actually run (when it is not that file:
 * a #! script's or binfmt_misc's interpreter) and len6 bytes of the
 * LD_PRELOAD=, LD_LIBRARY_PATH= and LD_AUDIT= entries of the new
 * environment (NUL-terminated each).
 *
 * sys is the canonical syscall (enum ab_sys) of an event written at
 * sys_exit, 0 for the others.
 *
 * start is the start time (CLOCK_MONOTONIC ns) of the process (thread
 * group leader) that the event is about, pstart its parent's: with tgid
 * and ppid they identify processes across pid reuse.
 */
struct ab_event {
	__u64 session;
	__u64 ts;
	__s64 ret;
	__u64 flags;
	__u64 start;
	__u64 pstart;
	__u64 ino;
	__u32 dev; /* kernel encoding: major << 20 | minor */
	__u32 pid;
	__u32 tgid;
	__u32 ppid;
	__u8 op;
	__u8 pad0;
	__u16 info;
	__u16 len[5];
	char comm[AB_COMM_LEN];
	__u16 len5;
	__u16 len6;
	__u16 sys;
	__u16 pad[2];
	char data[AB_DATA_SZ];
};

#define AB_HDR_SIZE 112 /* offsetof(struct ab_event, data) */
_Static_assert(__builtin_offsetof(struct ab_event, data) == AB_HDR_SIZE, "ab_event header size");

/* Argument of the ab_sync program (BPF_PROG_RUN context). */
struct ab_sync_args {
	__u64 session;
	__u64 seq;
};

#endif
