// Package oracle turns traced runs of a task's reference solution (the
// oracle) into a permission spec, and replays the oracle under a spec to
// prove it sufficient (verify) and to find entries it does not need
// (minimise). Every run goes through the daemon API (daemon.RunTask), so
// the CLI and the benchmark share one run lifecycle. See docs/oracle.md.
package oracle
