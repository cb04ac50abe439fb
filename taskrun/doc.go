// Package taskrun carries out one task run (docs/architecture.md).
//
// Run: the task image is built or found cached
// (package env: image map, registry, offline defaults, each
// substitution recorded), a fresh copy-on-write rootfs is laid over
// it, the policy is scored statically against the spec, and the
// task's compose sidecars start (healthchecks, depends_on, named
// volumes shared with the agent's rootfs; each under die-with-parent).
// The agent then runs under runc as the init of its container,
// through sandbox-init: Landlock from the policy plus the spec's
// implicit permissions (run-time rules for paths below the
// container's own mounts), the container seccomp profile (set-ID
// modes allowed: the rootfs is mounted nosuid), no_new_privs, the
// task's user with its groups and its capabilities (Docker's set
// unless task.toml or Options change it), traced. The agent's name is
// parsed by package agent/agentname and its kind is a value of agentKind
// (layers, prepare, baseline, run, finish): the oracle and the shortcut
// (a script of solution/, copied in), `cmd:COMMAND`, an `openai:MODEL`
// model agent — its loop runs here, each tool call in the confined
// toolbox (package agent/toolbox) over a socket pair; a toolbox that
// dies is restarted once, then the run stops as toolbox_died — or an
// installed harness, `installed:NAME[@VERSION][:MODEL]` (package
// agent/installed, one value per harness). Then the utility verifier
// V_u and, for sensitive tasks, the attack verifier V_a run in the same
// rootfs without the policy, the way Harbor runs them, each traced in its own session
// (VerifierTrace). A file the agent left — judged by identity and
// content, not name; a file only copied up unchanged is not the
// agent's — that a verifier read, executed or mapped as code is
// tampering (TamperedFile), and the run's verdicts are not trusted.
// The Result is written as result.json beside the run's capped logs
// and traces (Files names them). runner.run reads like Harbor's
// Trial.run: prepare, agent, verify, finalize.
//
// The run's environment and its gated containers are shared with the
// exploration sandbox of permission generation (package taskrun/explore)
// through taskrun/internal/runbox; a model agent's toolbox is
// taskrun/internal/session, which the exploration's model generator uses
// too.
//
// Nothing here is kept between runs but the images.
package taskrun
