// Package sandbox is the child side of every run: a re-execution of the
// authbench binary ("sandbox-init") that waits at a gate until its parent
// has finished preparing (for example, registered the child with the
// tracer), then restricts itself and execs the target command.
//
// The parent uses Start to create the gated child and Child.Release to
// let it go; errors that happen in the child before exec (bad spec,
// command not found, restriction failures) come back to the parent
// through a close-on-exec pipe, so the caller sees them as Go errors.
// Exec does the same in the calling process when no gate is needed.
//
// What a Spec restricts, in the order it is applied (restrict in
// init.go): inherited descriptors above stderr are closed; Landlock
// enforces a policy.Plan on every thread (rights and ABI versions are the
// data table in landlock_abi.go; EnforcementFor says what a kernel cannot
// enforce; ABI-6 scopes stop abstract unix sockets and signals to
// processes outside); the capability bounding set keeps only the
// capabilities of caps.go; the identity drops to a uid/gid; no_new_privs
// is set; a seccomp filter is installed with TSYNC.
//
// Seccomp profiles use the OCI runtime-spec LinuxSeccomp format with
// Docker's extensions (seccomp_profile.go). CompileProfile turns one into
// classic BPF (seccomp_compile.go, a binary search over syscall numbers;
// seccomp_bpf.go assembles it) with syscall tables generated from
// golang.org/x/sys (go generate, internal/mksysnum); unknown syscall
// names are an error that names them. profiles/default.json is the
// default profile, printed by `authbench seccomp default`.
//
// The conversion steps (plan, enforcement, profile compilation) are pure
// and tested with tables; applying them is the small restrict step. Tests
// that restrict a process re-execute the test binary and restrict only
// the child.
package sandbox
