// Package viewer is the local web viewer of bench out dirs (`authbench
// view`): Table 1 and the figures of each out dir (a job), its runs with
// filters, every run's policy beside its task's spec, plan, denials,
// events, network attempts, trajectory and verifiers' output, and two
// jobs side by side.
//
// It is split as the rest of the code is: pure functions turn records and
// the bytes of a run's files into view models (job.go, filter.go, run.go,
// events.go, compare.go), a small http.Handler renders them with
// html/template (handler.go), and reading a run's files is one separate
// step (files.go).
//
// An out dir is written by confined runs: what an agent or a task placed
// there is untrusted. Every file of a run is read from the out dir's
// descriptor without following a link, only when it is a regular file
// (safefile), and within a size bound; results.db is read from a private
// copy (bench.LoadRecords). The viewer never writes to an out dir. Run
// ids in URLs are looked up among the job's records, never joined to a
// path as given. Pages load no outside asset: the stylesheet and the
// script are embedded and a Content-Security-Policy forbids the rest.
package viewer
