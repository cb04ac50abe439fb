// Package runbox is what the three jobs of package taskrun share: one
// task environment made ready for a run (Box: the task image built or
// found, a fresh copy-on-write rootfs, the agent's identity, the plan)
// and the gated containers run in it (RunGated: runc starts
// sandbox-init, which waits at its gate while the tracer follows it, is
// released, waited for and killed when its time is up, through
// internal/lifecycle). The agent's container parts (its sandbox-init
// spec, capped stdout and stderr, its trace, a program the policy
// refused) are here too, because the task run's agent, the model
// toolbox session (taskrun/internal/session) and the exploration
// sandbox (taskrun/explore) all run one.
//
// Nothing here decides what a run means: the caller records the results.
package runbox
