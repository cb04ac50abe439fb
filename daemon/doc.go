// Package daemon is authbench's one privileged component. It carries
// out runs in sandboxed, traced process trees,
// keeps run records under a state directory and serves a versioned
// HTTP/JSON API on a unix socket (docs/api.md). Callers are authorised by
// SO_PEERCRED: root and members of one group; a member sees and controls
// only its own runs, runs as itself, at most MaxActivePerUID at once.
//
// One request, POST /v1/runs, carries four kinds of run: a tagged union
// (runapi.RunRequest) with exactly one member, beside the fields common
// to every kind (timeout_s), decoded strictly and checked once. Each kind
// is one type of the small runKind interface (validate, execute, its
// default timeout, whether it takes signals, is traced, lays a rootfs
// down, and its artifacts), one file each (kind_exec.go, kind_task.go,
// kind_generate.go, kind_build.go), with its own parsed state
// (prepared.go): a fifth kind is one more type. A run serves only the
// files its kind's artifact table names (GET /v1/runs/{id}/{name}; a
// 404 naming them otherwise), opened without following a symlink. All
// go through the same Manager lifecycle (queue, start, wait or cancel,
// signal, record, logs):
//   - a command under a policy (RunRequest.Exec; `authbench exec`,
//     `authbench trace`):
//     sandbox-init with Landlock, seccomp and an identity, traced, its
//     denials judged by package audit;
//   - a task run (RunRequest.Task, package taskrun): the task's agent —
//     oracle, shortcut, `cmd:COMMAND`, an `openai:MODEL` model agent
//     whose tool calls run in the confined toolbox, or an installed
//     harness (`installed:NAME[:MODEL]`, package agent/installed) — then
//     its verifiers;
//     a member may run only tasks under Config.TrustedTaskRoots, with
//     Docker's capabilities at most;
//   - a permission generation (RunRequest.Generate, package generate):
//     a generator in a read-only copy of the task's environment;
//   - an image build (RunRequest.Build, package env): a base image or a
//     task's image exported to a rootfs directory in the daemon's image
//     store (debootstrap, buildah), so nothing privileged runs outside
//     the daemon.
//
// Task runs, generations and image builds are carried out behind the
// contract of package daemon/work (Config.Work, package daemon/taskwork);
// the tracer (Config.Tracer) and the metrics (Config.Metrics, package
// daemon/metrics) are interfaces too. The core links none of them, so
// the thin front (cli/front) embeds it for exec; a Manager without Work
// runs commands only.
//
// A member's model agent or generator may use only the endpoints and
// limits the config's [model] section allows members (modelconfig.MemberPolicy:
// 403 model_endpoint_not_allowed, model_limits, before any connection);
// the model's key travels in the request and is kept in memory only.
// The wire types, the records, the API interface, the socket client and
// the artifact table are package runapi, which links none of this: the
// CLI, bench, oracle and report use it, over the socket (runapi.Client) or
// in process (Local, the one Manager the CLI embeds).
//
// The same Manager also runs embedded in the CLI when no daemon is
// listening, so every command behaves the same either way. An embedded
// manager claims its state directory and leaves a watchdog process behind
// it (Embed) that recovers its runs in flight — containers, overlays,
// records — when the CLI dies, even by SIGKILL; RecoverStale does the
// same at every start for a state directory nobody else uses.
package daemon
