// Package sandbox is the child side of every run: sandbox-init, a process
// that waits at a gate until its parent has finished preparing (for
// example, registered the child with the tracer), then restricts itself
// and execs the target command. sandbox-init is the small
// authbench-sandbox-init program next to the authbench binary when there
// is one as trustworthy as the binary (InitProgram; it links only this
// package and starts in about a millisecond), else a re-execution of the
// authbench binary itself ("authbench sandbox-init"). The spec is read
// strictly: a field it does not know fails the run rather than being
// left out.
//
// A Launch is assembled by NewConfinement (confinement.go), the one
// builder of what sandbox-init applies: each mechanism is an Option
// (Landlock or LandlockPolicy, Seccomp or SeccompProfile and
// WithoutOpenat2Agent, NoNewPrivs, Capabilities, Identity,
// CloseInheritedFDs, HidePaths, RefuseUnixConnect, WaitTree, ReportExit;
// Confined is the set `authbench exec` applies), checked together, and
// Confinement.Confine fills in the command. A new mechanism is a Launch field
// sandbox-init applies and one Option.
//
// The parent uses Start to create the gated child and Child.Release to
// let it go; a failure in the child before exec comes back to the parent
// as one JSON InitError on a close-on-exec pipe: the step that failed
// (InitStage), the errno, the path concerned and a message. Its
// ShellStatus is what a shell would report: 127 not found, 126 found but
// not executable, 125 not confined. Exec does the same in the calling
// process when no gate is needed, and returns the same *InitError.
//
// sandbox-init's steps, in order (restrict in init.go), each with what it
// needs and every check on behalf of the command made as the command:
//
//  1. spec: read and validate the spec (unknown capability names fail
//     here); inherited descriptors above stderr are closed at exec.
//  2. mount: with Launch.HidePaths, the exec thread moves to a mount
//     namespace of its own, makes every mount private and covers each
//     hidden directory with an empty read-only tmpfs, and any other
//     hidden file with /dev/null bound read-only (LaunchOptions.
//     OwnMountNamespace also starts the process in a new namespace).
//  3. landlock: enforce a policy.Plan on the exec thread (the command
//     inherits its domain; the other threads end at the exec), on every
//     thread of a reaper that stays (Launch.WaitTree), while still root
//     so that rule paths only root can open can be added (rights and ABI
//     versions are the data table in landlock_abi.go, and so are the
//     known errata: a kernel without a fix is used as the lower ABI
//     go-landlock would use, so that no record claims a scope that is not
//     enforced; EnforcementForKernel says what a kernel cannot enforce,
//     and records carry the kernel's version and unfixed errata; ABI-6
//     scopes stop abstract unix sockets and signals to processes outside).
//     Run-time rules (paths below a mount the container sets up) are
//     placed here, after the mounts: a missing path is skipped, a file
//     keeps only file rights.
//  4. capabilities: the tree keeps only Launch.Capabilities (none by
//     default, uid 0 included), the way Docker gives a container its
//     set: the bounding set is reduced to them and the ambient and
//     inheritable sets cleared; after the identity change a uid-0 tree
//     holds them effective and permitted (root's exec gives it its
//     bounding set again, and no_new_privs caps that at the permitted
//     set), any other uid holds none, the kernel having cleared its sets
//     at the uid change. Landlock confines files whatever the
//     capabilities (CAP_DAC_OVERRIDE included).
//  5. identity: drop to the uid/gid with exactly the supplementary
//     groups of Launch.Groups (none when empty; groups need a uid and gid).
//  6. chdir: enter Launch.Dir as that identity, under Landlock: a member
//     cannot start in a directory it could not enter itself.
//  7. no_new_privs, then 8. seccomp (TSYNC), last, so that the filter
//     only has to allow what remains.
//  9. lookup and exec: Launch.Path is absolute, relative with a "/"
//     (against Dir), or a bare name searched in the PATH of Launch.Env
//     (policy.DefaultPath if none; empty and relative entries skipped) like
//     execvp: every candidate is execve'd as the final process, missing
//     ones skipped, EACCES remembered. No check happens before the use,
//     and none as root.
//
// Seccomp profiles use the OCI runtime-spec LinuxSeccomp format with
// Docker's extensions (seccomp_profile.go). CompileProfile turns one into
// classic BPF (seccomp_compile.go, a binary search over syscall numbers;
// seccomp_bpf.go assembles it) with syscall tables generated from
// golang.org/x/sys (go generate, internal/mksysnum); unknown syscall
// names are an error that names them. profiles/default.json is the
// default profile, printed by `authbench seccomp default` and compiled
// ahead of time for each architecture (seccomp_default_table.go, go
// generate, internal/mkdefault). Beyond Docker's profile it refuses
// io_uring, open_by_handle_at and read-only opens with O_TRUNC (EACCES:
// on an overlay the kernel would copy the lower file up emptied before
// Landlock's truncate check); FileAttrIoctls names chattr's ioctls for
// filters that refuse them (the generation sandbox's).
// ContainerProfile (seccomp_container.go) is the default profile without
// its set-ID rule for chmod, fchmod, fchmodat, fchmodat2, creat, open and
// openat: the task runner confines agents in containers with it, whose
// root and binds are mounted nosuid, so that `chmod g+s DIR` works as
// under Docker; bare-host trees (exec, the daemon) keep the default
// profile, and policy generation a stricter one.
//
// Capabilities are Docker's model: package capability holds the names,
// the default set and `--caps none|docker|LIST`; caps.go applies them.
// DieWithParentCommand is the init of containers that run no
// sandbox-init (a task's compose sidecars): it arms the parent-death
// signal, so they end with the runc that started them, and with
// ConfineFlag installs SidecarFilter (the container profile, openat2
// allowed) before the exec.
//
// Ruleset (ruleset.go) is a plan's Landlock ruleset kept by a confined
// process to restrict threads of its own, and grown by run-time grants
// whose paths are opened without following links: a model agent's tool
// process under --requests, whose filter is GrantingFilter (the container
// profile with openat2 refused ENOSYS rather than served by the openat2
// agent under the process's wider ruleset).
//
// The conversion steps (plan, enforcement, profile compilation) are pure
// and tested with tables; applying them is the small restrict step. Tests
// that restrict a process re-execute the test binary and restrict only
// the child.
package sandbox
