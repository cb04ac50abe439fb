// Package tracer records every file access and process-lifecycle event of
// one or more process trees with eBPF. While a session is open every
// syscall of the machine takes the kernel's syscall-tracepoint path (its
// cost depends on the machine: `make bench-trace` measures it as "hook"),
// and each event of a traced tree costs about 1-3 µs in the kernel and
// about 3 µs of the reader's CPU, wake-ups included (measured on a
// loaded 2-core VM; `make bench-trace` prints both per run).
//
// Load loads the programs of package bpf (BTF tracepoints on sys_exit, on
// sched_process_fork/exec/exit, on sched_prepare_exec where the kernel has
// it (6.10+) and on io_uring_submit_req) and starts one ring-buffer
// reader. The
// programs are attached only while sessions are open (and for
// Options.IdleDetach after the last one), so an idle Tracer costs the
// machine nothing. Track (or TrackWith) adds a process, typically a
// sandbox-init child waiting at its gate, as the root of a new Session.
// Membership is decided in the kernel: a map from tgid to session id,
// which a child joins at fork and leaves at exit, so a session sees
// exactly its own tree and nothing else, with many sessions at once, and
// unrelated processes cost a table lookup per syscall (and, for traced
// syscalls, one hash lookup). Session.Events delivers decoded Events in
// batches, at most about 50 ms after the kernel wrote them (the reader is
// woken by the kernel only per 256 KiB of records, and polls; it waits
// parked in the Go poller and hands a batch straight to the consumer, so
// that an idle or lightly loaded reader costs no CPU); a consumer may
// give a batch back with Session.Recycle. Session.Close stops tracking, waits until every event
// committed before the call has been read (a marker written through the
// ring buffer by a BPF_PROG_RUN proves it) and returns the Summary.
//
// Nothing is dropped silently: Summary.Lost counts events the kernel could
// not record for the session (ring buffer or membership map full),
// records user space could not decode, and program runs the kernel
// skipped (attributed to every session open at the time). A child that
// could not join the membership map counts once, though its later events
// are all missing.
//
// Paths are absolute and lexically clean, as seen by the traced process.
// A relative or dirfd-relative path is joined with its base directory
// (the cwd, or the dirfd's file), which the kernel side walks up to the
// process's root with a bounded bpf_loop, crossing mounts through struct
// mount (CO-RE), so a process in a chroot or another mount namespace
// reports its own view. Symbolic links in the name as given are kept, as
// strace shows them; the base directory is its real location. Everything
// is read when the syscall returns, so two calls report what they did
// rather than their arguments: a chdir that succeeded with a relative
// name reports the directory it moved to, and an exec through a
// descriptor (fexecve, execveat with a dirfd) the file that was executed.
// Names longer than PATH_MAX, directories deeper than 256 levels or over
// 4 KiB of names are cut and the event is marked Incomplete.
//
// Besides the file operations (open, exec, mkdir, unlink, rmdir, rename,
// link, symlink, truncate, chdir) and the process lifecycle (fork,
// exit), a session records executable mappings of files (mmap and
// mprotect with PROT_EXEC: code that ran without an execve), the
// capability family (chown, chmod, setxattr, mknod, set-ID calls, each
// with its system call's name), io_uring set-ups and the path operations
// submitted through io_uring. An exec names the file executed (a #!
// script itself) and the interpreter the kernel ran for it (Interp), and
// the dynamic-loader variables of its environment (LdEnv);
// TrackOptions.FromExec drops a tracked launcher's events before its
// first exec. The objects are built for amd64 and arm64.
//
// Events are written as JSON lines by Writer (see Event.AppendJSON for the
// encoding of names that are not UTF-8) and summarised for humans by
// Counts.
package tracer
