// Package cli holds the cobra commands of the authbench binary. Each
// command parses its flags, calls the package that owns the work and
// prints the result: human text on stderr, machine output (--json) on
// stdout. Errors are printed once by Main; bad input exits 2.
package cli
