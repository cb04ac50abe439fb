// Package audit judges a run's trace against the Landlock plan it ran
// under (Auditor): which operations were denials (failed with EACCES or
// EPERM where the plan forbids them, docs/api.md); which programs ran
// through the dynamic loader and which files were mapped executable
// without an execute right (exec_via_mmap: code Landlock cannot see,
// docs/security.md), both listed as allowed by the kernel outside the
// plan; and which EPERMs of the capability family (chown, chmod,
// setxattr, mknod, set-ID calls) were capability checks
// (CapabilityDenials). Its copy of the rules follows inodes as Landlock's
// do: a file the agent removes or renames over loses its rule.
//
// Record writes a traced session's events to a JSON-lines file while
// auditing them, and ReadLog reads such a file back. The embedded
// `authbench exec --trace` and the daemon both record runs through it,
// so they agree on what a denial is.
package audit
