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
// rule refused by (Rule* constants), Reason says why in words.
type ForbiddenError struct {
	Rule   string
	Reason string
}

func (e *ForbiddenError) Error() string { return "forbidden: " + e.Reason }

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
	case errors.Is(err, ErrBusy):
		return http.StatusTooManyRequests
	case errors.Is(err, ErrShuttingDown):
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}
