// Package sandbox is the child side of every run: a re-execution of the
// authbench binary ("sandbox-init") that waits at a gate until its parent
// has finished preparing (for example, registered the child with the
// tracer), then restricts itself and execs the target command.
//
// The parent uses Start to create the gated child and Child.Release to
// let it go; errors that happen in the child before exec (bad spec,
// command not found, restriction failures) come back to the parent
// through a close-on-exec pipe, so the caller sees them as Go errors.
package sandbox
