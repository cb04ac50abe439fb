package permreq

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/authbench/authbench/policy"
)

// MaxReasonBytes bounds a request's reason as it is kept: a longer one
// is cut (at a UTF-8 boundary) before it enters any record.
const MaxReasonBytes = 1024

// AccessNetwork is the access of a network request (host:port): not
// granted at run time yet (docs/security.md).
const AccessNetwork = "network"

// Request is one permission an agent asks for.
type Request struct {
	// Axis is what the agent wants to do with Path.
	Axis policy.Axis
	// Path is an absolute path, or a directory's hierarchy ("dir/**");
	// never a glob.
	Path policy.Pattern
	// Reason is the agent's explanation, at most MaxReasonBytes.
	Reason string
}

// Parse checks a request as an agent sent it: access read, write or
// execute; path absolute, without glob characters (a trailing "/**" asks
// for a directory's hierarchy); a reason that is not empty. Every error
// says what to send instead.
func Parse(access, path, reason string) (Request, error) {
	if access == AccessNetwork {
		return Request{}, errors.New("access network: network requests are not granted at run time (only read, write and execute)")
	}
	a, err := policy.ParseAxis(access)
	if err != nil {
		return Request{}, fmt.Errorf("access: %w", err)
	}
	if !strings.HasPrefix(strings.TrimSpace(path), "/") {
		return Request{}, fmt.Errorf("path %q is not absolute: name the file by its absolute path", cut(path, 200))
	}
	p, err := policy.ParsePattern(path)
	if err != nil {
		return Request{}, fmt.Errorf("path: %w", err)
	}
	if p.HasGlob() {
		return Request{}, fmt.Errorf("path %q has glob characters (*?[): ask for one path, or a directory with a trailing /**", cut(path, 200))
	}
	if strings.ContainsRune(path, 0) {
		return Request{}, errors.New("path holds a NUL byte")
	}
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return Request{}, errors.New("reason is empty: say why the task needs this access")
	}
	return Request{Axis: a, Path: p, Reason: cut(reason, MaxReasonBytes)}, nil
}

// String is the request as "axis path".
func (r Request) String() string { return r.Axis.String() + " " + r.Path.String() }

// cut shortens s to at most n bytes at a UTF-8 boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
