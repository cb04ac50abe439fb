// Package oracle turns traced runs of a task's reference solution (the
// oracle) into a permission spec, and proves specs against it:
//
//   - Record runs the oracle unconstrained and traced several times, each
//     in a fresh rootfs, derives what every run accessed (Derive), keeps
//     what lies in the scored roots and outside the implicit permissions,
//     merges the runs (flagging nondeterministic entries), turns paths
//     that depend on one run's accidents into patterns (Compact: generated
//     names, many files created in one directory) and compares the result
//     with the curated spec (DiffRequired). With verification it ends in
//     MakeSufficient: the recorded spec is replayed, and each deciding
//     denial adds the narrowest entry it calls for, for a bounded number
//     of rounds; a denial of a sensitive path, an oracle that passes only
//     some replays or a loop that does not converge is refused.
//   - Verify replays the oracle under a spec to prove it sufficient and,
//     on request, drops the entries it does not need (minimise).
//   - AgreementOf and MacroAgreement score recorded specs against the
//     curated ones per axis (`make record-agreement`).
//
// Every run goes through the daemon API (runapi.RunTask), so the CLI and
// the benchmark share one run lifecycle. See docs/oracle.md.
package oracle
