package modelconfig

import (
	"fmt"
	"net"
	"net/url"
	"path"
	"strings"
)

// Defaults of a MemberPolicy's zero limits.
const (
	DefaultMemberMaxTurns        = 100
	DefaultMemberMaxHistoryBytes = DefaultMaxHistoryBytes
)

// MemberPolicy is what root allows the members of the daemon's group in
// their model configs (the [model] table of the daemon's config file):
//
//	[model]
//	allowed_base_urls = ["http://127.0.0.1:8080/v1", "https://api.openai.com/v1"]
//	member_max_turns = 100
//	member_max_history_bytes = 16777216
//
// Root and the embedded CLI are not bound by it.
type MemberPolicy struct {
	// AllowedBaseURLs are the endpoints members may name: a base_url
	// is allowed when its scheme, host and port are one entry's and its
	// path is the entry's path or below it. None: members may use no
	// model.
	AllowedBaseURLs []string
	// MaxTurns bounds a member's max_turns (0: DefaultMemberMaxTurns).
	MaxTurns int
	// MaxHistoryBytes bounds a member's max_history_bytes, the loop's
	// memory budget (0: DefaultMemberMaxHistoryBytes).
	MaxHistoryBytes int64
}

// Check checks the policy's entries: each an http(s) URL with a host, no
// credentials, query or fragment.
func (p MemberPolicy) Check() error {
	for _, a := range p.AllowedBaseURLs {
		if _, err := parseEndpoint(a); err != nil {
			return fmt.Errorf("allowed_base_urls: %q: %w", a, err)
		}
	}
	switch {
	case p.MaxTurns < 0:
		return fmt.Errorf("member_max_turns %d: negative", p.MaxTurns)
	case p.MaxHistoryBytes < 0:
		return fmt.Errorf("member_max_history_bytes %d: negative", p.MaxHistoryBytes)
	}
	return nil
}

// AllowsBaseURL reports whether a member may use baseURL: nil, or why
// not.
func (p MemberPolicy) AllowsBaseURL(baseURL string) error {
	want, err := parseEndpoint(baseURL)
	if err != nil {
		return fmt.Errorf("base_url %q: %w", baseURL, err)
	}
	for _, a := range p.AllowedBaseURLs {
		if e, err := parseEndpoint(a); err == nil && e.covers(want) {
			return nil
		}
	}
	if len(p.AllowedBaseURLs) == 0 {
		return fmt.Errorf("base_url %q: the daemon allows members no model endpoint ([model] allowed_base_urls is empty)", baseURL)
	}
	return fmt.Errorf("base_url %q is not under any of [model] allowed_base_urls (%s)", baseURL, strings.Join(p.AllowedBaseURLs, ", "))
}

// Limit applies the policy's limits to a member's config as the member
// asked for it (before Resolve): a limit passed is an error naming it; a
// value left to its default gets the default, or the limit when that is
// lower.
func (p MemberPolicy) Limit(c Config) (Config, error) {
	maxTurns := p.MaxTurns
	if maxTurns == 0 {
		maxTurns = DefaultMemberMaxTurns
	}
	maxHist := p.MaxHistoryBytes
	if maxHist == 0 {
		maxHist = DefaultMemberMaxHistoryBytes
	}
	switch {
	case c.MaxTurns > maxTurns:
		return c, fmt.Errorf("max_turns %d is over the daemon's limit for members, %d ([model] member_max_turns)", c.MaxTurns, maxTurns)
	case c.MaxHistoryBytes > maxHist:
		return c, fmt.Errorf("max_history_bytes %d is over the daemon's limit for members, %d ([model] member_max_history_bytes)", c.MaxHistoryBytes, maxHist)
	}
	if c.MaxTurns == 0 {
		c.MaxTurns = min(DefaultMaxTurns, maxTurns)
	}
	if c.MaxHistoryBytes == 0 {
		c.MaxHistoryBytes = min(DefaultMaxHistoryBytes, maxHist)
	}
	return c, nil
}

// endpoint is a base URL reduced to what the allow-list compares.
type endpoint struct {
	scheme, host, port, path string
}

// parseEndpoint parses an http(s) base URL: no credentials, query,
// fragment, dot segments or unusual escapes; the port made explicit and
// the path without its trailing slash.
func parseEndpoint(s string) (endpoint, error) {
	u, err := url.Parse(s)
	if err != nil {
		return endpoint{}, err
	}
	e := endpoint{scheme: strings.ToLower(u.Scheme), host: strings.ToLower(u.Hostname()), port: u.Port()}
	switch {
	case e.scheme != "http" && e.scheme != "https":
		return e, fmt.Errorf("want an http:// or https:// URL")
	case e.host == "":
		return e, fmt.Errorf("no host")
	case u.User != nil:
		return e, fmt.Errorf("credentials in the URL")
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return e, fmt.Errorf("a query or fragment")
	case u.RawPath != "" && u.RawPath != u.EscapedPath():
		return e, fmt.Errorf("an escaped path")
	case strings.ContainsAny(u.Path, "%\\"):
		return e, fmt.Errorf("an escaped path")
	}
	if e.port == "" {
		e.port = map[string]string{"http": "80", "https": "443"}[e.scheme]
	}
	if ip := net.ParseIP(e.host); ip != nil {
		e.host = ip.String()
	}
	p := strings.TrimRight(u.Path, "/")
	if p != "" && path.Clean(p) != p {
		return e, fmt.Errorf("dot segments or empty segments in the path")
	}
	e.path = p
	return e, nil
}

// covers: u is e, or a path below e's.
func (e endpoint) covers(u endpoint) bool {
	if e.scheme != u.scheme || e.host != u.host || e.port != u.port {
		return false
	}
	return e.path == "" || u.path == e.path || strings.HasPrefix(u.path, e.path+"/")
}
