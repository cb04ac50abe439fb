package core

import (
	"errors"
	"fmt"

	"github.com/authbench/authbench/daemon"
	"github.com/authbench/authbench/runapi"
)

// Exit codes shared by every command.
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitUsage   = 2
)

// Exit statuses of a command that could not be run, as shells (and
// `env`, `docker run`) use them.
const (
	ExitSandboxFailure = 125
	ExitNotExecutable  = 126
	ExitNotFound       = 127
)

// UsageError marks bad input from the user (flags, unreadable or invalid
// files): the CLI exits with ExitUsage.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// UsageErrorf is a UsageError with a formatted message.
func UsageErrorf(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// Usage marks err (nil stays nil) as a UsageError.
func Usage(err error) error {
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

// ExitCode is the exit status of a command that ended with err: 0 for
// nil, ExitUsage for a UsageError, an ExitError's code, else
// ExitFailure.
func ExitCode(err error) int {
	var ue *UsageError
	var ee *ExitError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ue):
		return ExitUsage
	case errors.As(err, &ee):
		return ee.Code
	}
	return ExitFailure
}

// IsBadRequest reports whether err is a request the daemon refused for
// its input (400, or its embedded RequestError): a usage error here.
func IsBadRequest(err error) bool {
	var ae *runapi.APIError
	var re *daemon.RequestError
	return errors.As(err, &re) || errors.As(err, &ae) && ae.Status == 400
}
