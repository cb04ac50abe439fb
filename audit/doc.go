// Package audit judges a run's trace against the Landlock plan it ran
// under: which operations were denials (failed with EACCES or EPERM where
// the plan forbids them, docs/api.md), and which programs ran through the
// dynamic loader (an execute Landlock cannot see, docs/security.md). The
// embedded `authbench exec --trace` and the daemon both record runs
// through it, so they agree on what a denial is.
package audit
