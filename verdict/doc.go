// Package verdict is a run's verdict as failure classes: the typed
// labels (Class), and Classify, which labels what a run showed (its
// verifiers' verdicts, the audit's denials, the traced sensitive
// accesses, the flags) with every class that applies, the primary one
// and the denial that decided it (docs/benchmark.md, "Failure
// classification").
//
// It is pure and sits beside audit in the judgement layer: the task run
// classifies itself where it happens (taskrun writes the classification
// into result.json, runapi.TaskResult), and the bench and the report
// read what the run computed.
package verdict
