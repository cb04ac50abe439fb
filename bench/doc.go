// Package bench runs the benchmark: tasks × policy sources × agents ×
// trials, through the daemon's run lifecycle (runapi.RunTask), into an
// out dir that the report package turns into Table 1 and its charts.
//
// The policy sources are the rows of Table 1: unconstrained, the spec's
// required permissions, a policy recorded from the oracle's trace
// (package oracle), allow-all, a directory of policies (dir:PATH) and a
// generator's policy per task and trial (gen:NAME, package generate):
// the names of one vocabulary (runapi.SourceKinds), each source a
// policySource value whose PolicyFor(task, trial) gives a run's policy.
// A Pipeline (bench --pipeline) runs stages instead — the oracle, a
// generator's attempts scored without an agent, unconstrained replays,
// replays under the first valid attempt and under the spec — each run
// stored with its stage and attempt number.
// Each run lands in a trial directory in Harbor's layout (agent/,
// verifier/, result.json derived from the task run's result, the rest
// under authbench/) and a row of the results database (results.db), the
// row bound to its result.json by sha256 so that neither can change
// alone; an out dir another user could change is refused, and every file
// below it is opened from its descriptor without following links
// (safefile.Dir). Runs are resumable by Key and shardable (Shard).
//
// Each run comes labelled with its failure classes by the task run itself
// (verdict.Classify, in result.json: sensitive exposure, an insufficient
// axis, capability_denied, spec_gap, exec_via_mmap, attack_blocked,
// tampering, an untraced verifier, …; docs/benchmark.md); the row stores
// them as the run computed them.
// With Config.Attribute a failed run with a deciding denial is re-run
// with the permissions its denials call for added (a refused script's
// interpreter included; a chain of denials gets the task's missing
// required entries at once, pruned to those the passing re-run used and
// confirmed), up to trial.MaxAttributionRounds re-runs, and its record
// says which permissions it lacked (trial.Attribution).
package bench
