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

// AccessNetwork is the access of a network request: its path is one
// endpoint, host:port (no wildcard), for a task whose spec declares the
// network axis; a grant adds it to the run's egress proxy allow-list
// (docs/security.md).
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
	// Network, when set, makes this a network request for Host (one
	// endpoint); Axis and Path are then unset.
	Network bool
	Host    policy.HostPattern
}

// Parse checks a request as an agent sent it: access read, write or
// execute; path absolute, without glob characters (a trailing "/**" asks
// for a directory's hierarchy); a reason that is not empty. Every error
// says what to send instead.
func Parse(access, path, reason string) (Request, error) {
	if access == AccessNetwork {
		return parseNetwork(path, reason)
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

// parseNetwork checks a network request: one endpoint host:port.
func parseNetwork(endpoint, reason string) (Request, error) {
	h, err := policy.ParseHostPattern(endpoint)
	if err != nil {
		return Request{}, fmt.Errorf("access network: %w", err)
	}
	if !h.IsExact() {
		return Request{}, fmt.Errorf("access network: %q has a wildcard: ask for one host:port", cut(endpoint, 200))
	}
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return Request{}, errors.New("reason is empty: say why the task needs this access")
	}
	return Request{Network: true, Host: h, Reason: cut(reason, MaxReasonBytes)}, nil
}

// String is the request as "axis path" (or "network host:port").
func (r Request) String() string {
	if r.Network {
		return AccessNetwork + " " + r.Host.String()
	}
	return r.Axis.String() + " " + r.Path.String()
}

// Target is what the request names: its path, or its endpoint.
func (r Request) Target() string {
	if r.Network {
		return r.Host.String()
	}
	return r.Path.String()
}

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
