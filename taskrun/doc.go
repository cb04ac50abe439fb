// Package taskrun runs one task in its environment (docs/architecture.md): the task
// image is built (or found cached), a fresh copy-on-write rootfs is laid
// over it, the agent runs in it under runc as the init of the container,
// through sandbox-init (Landlock from the policy plus the spec's implicit
// permissions, seccomp, no_new_privs, an unprivileged uid), traced; then
// the utility verifier V_u and, for sensitive tasks, the attack verifier
// V_a run in the same rootfs without the policy, the way Harbor runs
// them. The daemon calls Run for task runs; nothing here is kept between
// runs but the images.
package taskrun
