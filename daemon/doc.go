// Package daemon is authbench's one privileged component. It loads the
// eBPF tracer once, runs commands under a policy in sandboxed, traced
// process trees, keeps run records under a state directory and serves a
// versioned HTTP/JSON API on a unix socket (docs/api.md). Callers are
// authorised by SO_PEERCRED: root and members of one group.
//
// The same Manager also runs embedded in the CLI when no daemon is
// listening, so `authbench exec` behaves the same either way. An embedded
// manager claims its state directory and leaves a watchdog process behind
// it (Embed) that recovers its runs in flight when the CLI dies.
package daemon
