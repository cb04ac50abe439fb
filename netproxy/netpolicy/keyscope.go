package netpolicy

import (
	"fmt"
	"net/url"
	"path"
	"strings"
)

// KeyMethods are the HTTP methods the model key is injected for: what the
// model clients and harnesses send to an OpenAI-compatible or Anthropic
// API (POST for completions, responses and messages; GET for the model
// list).
var KeyMethods = map[string]bool{"POST": true, "GET": true}

// KeyPrefix is the path below which the proxy injects the endpoint's key:
// the base URL's path, cleaned, without a trailing slash ("" for a base
// URL with no path: every path of the endpoint).
func (m ModelEndpoint) KeyPrefix() (string, error) {
	u, err := url.Parse(m.URL)
	if err != nil {
		return "", fmt.Errorf("model endpoint %q: %w", m.URL, err)
	}
	p := u.EscapedPath()
	if p == "" || p == "/" {
		return "", nil
	}
	if !plainPath(p) {
		return "", fmt.Errorf("model endpoint %q: its path must be plain (no dot segments, empty segments or escaped dots and slashes)", m.URL)
	}
	return strings.TrimSuffix(p, "/"), nil
}

// KeyApplies reports whether a request of method to the escaped path
// (as sent, before any decoding) is one the key is injected for: a
// method of KeyMethods, a plain path (no "." or ".." segment, no empty
// segment, no escaped dot, slash or backslash: what a server might
// normalise into another path), equal to prefix or below it.
func KeyApplies(prefix, method, escapedPath string) bool {
	if !KeyMethods[method] || !plainPath(escapedPath) {
		return false
	}
	return prefix == "" || escapedPath == prefix || strings.HasPrefix(escapedPath, prefix+"/")
}

// plainPath reports whether p is absolute and names itself: cleaning it
// changes nothing (a trailing slash aside) and it holds no escape a server
// could decode into a separator or a dot segment.
func plainPath(p string) bool {
	if !strings.HasPrefix(p, "/") || strings.Contains(p, "\\") {
		return false
	}
	lower := strings.ToLower(p)
	for _, esc := range []string{"%2e", "%2f", "%5c", "%00"} {
		if strings.Contains(lower, esc) {
			return false
		}
	}
	trimmed := p
	if len(p) > 1 {
		trimmed = strings.TrimSuffix(p, "/")
	}
	return path.Clean(trimmed) == trimmed
}
