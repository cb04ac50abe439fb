// Package cli holds the cobra commands of the full authbench binary
// (authbench-full, which the thin front bin/authbench hands every command
// but exec, score over a root and --version). Each
// command parses its flags, calls the package that owns the work and
// prints the result: human text on stderr, machine output (--json) on
// stdout. Errors are printed once by Main; bad input exits 2. Commands
// that run something send a daemon API request, to the daemon's socket
// or to a Manager embedded in the process (package cli/core, shared with
// the front, with the tracer and the task work this package adds: embed.go). Untrusted text
// (task and agent names, paths, model errors) reaches the terminal
// through internal/termtext, and a file written at a path the user names
// (--out, --trace) through internal/safefile. The hidden commands
// sandbox-init, agent-tools, die-with-parent and the embedded manager's
// watchdog are the binary in its other roles.
package cli
