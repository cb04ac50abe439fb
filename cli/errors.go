package cli

import "fmt"

// UsageError marks bad input from the user (flags, unreadable or invalid
// files): the CLI exits with ExitUsage.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usageErrorf(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

func usageError(err error) error {
	if err == nil {
		return nil
	}
	return &UsageError{Err: err}
}

// ExitError carries a specific exit status (for example a traced or
// enforced child's) without printing anything more than its message.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }
