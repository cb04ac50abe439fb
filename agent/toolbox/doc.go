// Package toolbox is the process a model's tool calls run as inside a
// task's confinement, and the host's client for it.
//
// The hidden command `authbench agent-tools` runs Serve on its stdin and
// stdout; sandbox-init execs it as the confined, traced agent process.
// Every operation (list_dir, read_file, write_file, grep, stat, which)
// runs in that process, under its Landlock domain, and `shell` runs
// bash (sh when bash is absent) as its child: a denied access fails in
// the kernel and its real error comes back to the model.
//
// With `authbench task run --requests`, the host first sends OpConfine
// (π's plan): from then on every operation runs on a fresh OS thread
// restricted to that plan's ruleset plus the grants the host sends with
// OpGrant, the toolbox itself holding the decider's wider ceiling
// (docs/security.md, "Permission requests").
//
// The protocol is JSON lines, one Request at a time, each answered by one
// Result with the same ID, over a unix socket pair (Connect) that the
// toolbox, sealed non-dumpable (Seal), holds out of the reach of the
// agent's processes. The client reads at most MaxResultBytes of a line
// and takes a result only for its request's exact ID.
package toolbox
