package daemon

import (
	"errors"
	"fmt"
	"net/http"
)

// RequestError is a bad request: the HTTP answer is 400 naming Field.
type RequestError struct {
	Field string
	Msg   string
}

func (e *RequestError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

func badField(field, format string, args ...any) error {
	return &RequestError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Errors with their own HTTP status.
var (
	// ErrNotFound: no run with that id.
	ErrNotFound = errors.New("no such run")
	// ErrBusy: the daemon holds as many active runs as it allows.
	ErrBusy = errors.New("too many active runs; try again later")
	// ErrShuttingDown: the daemon is stopping and takes no new runs.
	ErrShuttingDown = errors.New("the daemon is shutting down")
)

// ForbiddenError is an authorisation refusal (HTTP 403): Rule names the
// rule that refused (ErrorResponse.Rule), Reason says why.
type ForbiddenError struct {
	Rule   string
	Reason string
}

func (e *ForbiddenError) Error() string { return "forbidden: " + e.Reason }

func forbidden(rule, format string, args ...any) *ForbiddenError {
	return &ForbiddenError{Rule: rule, Reason: fmt.Sprintf(format, args...)}
}

// Rules of a ForbiddenError (ErrorResponse.Rule).
const (
	// RulePeerUnverified: the caller's credentials, process or
	// confinement could not be read or confirmed (fail closed).
	RulePeerUnverified = "peer_unverified"
	// RuleConfinedNoNewPrivs: the caller runs with no_new_privs, as
	// every confined tree does.
	RuleConfinedNoNewPrivs = "confined_no_new_privs"
	// RuleConfinedSeccomp: the caller runs under a seccomp filter.
	RuleConfinedSeccomp = "confined_seccomp"
	// RuleForeignPIDNamespace: the caller is in another PID namespace
	// than the daemon (a run, a task container, a container).
	RuleForeignPIDNamespace = "foreign_pid_namespace"
	// RuleNotMember: the caller is neither root nor in the daemon's group.
	RuleNotMember = "not_member"
	// RuleOwnIdentity: a non-root caller asked to run as someone else or
	// for a privilege only root has.
	RuleOwnIdentity = "own_identity"
	// RuleUntrustedTask: a non-root caller asked for a task directory
	// that is not under a trusted task root, or not root-owned all the
	// way down, or reached through a symlink.
	RuleUntrustedTask = "untrusted_task_dir"
	// RuleRootOnly: a non-root caller asked for what only root may see
	// (GET /metrics, which counts every user's runs).
	RuleRootOnly = "root_only"
)

// httpStatus maps an error to its HTTP status.
func httpStatus(err error) int {
	var re *RequestError
	var fe *ForbiddenError
	switch {
	case errors.As(err, &re):
		return http.StatusBadRequest
	case errors.As(err, &fe):
		return http.StatusForbidden
	case errors.Is(err, ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, ErrNotRunning):
		return http.StatusConflict
	case errors.Is(err, ErrBusy):
		return http.StatusTooManyRequests
	case errors.Is(err, ErrShuttingDown):
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}
