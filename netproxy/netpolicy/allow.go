package netpolicy

import (
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strings"

	"github.com/authbench/authbench/policy"
)

// defaultPorts are the ports of an entry written without one: Harbor's
// allowed_hosts names web hosts, so HTTP and HTTPS.
var defaultPorts = []string{"80", "443"}

// EntryError is an allow-list entry that cannot be used; Field names
// where it came from (e.g. `[agent] allowed_hosts[2]` or
// `--agent-allow-host`).
type EntryError struct {
	Field, Entry, Reason string
}

func (e *EntryError) Error() string {
	return fmt.Sprintf("%s %q: %s", e.Field, e.Entry, e.Reason)
}

// ParseEntry normalises one allow-list entry into policy.HostPattern
// entries (the one host:port matcher of authbench): "host:port",
// "host:*", "[v6]:port", "*.domain:port" as policy.ParseHostPattern
// reads them; Harbor's bare "host" (or "*.domain", "[v6]", a bare IPv6
// address) as host:80 and host:443; an http or https URL without a path
// as its host and port ("https://api.example.com" is
// api.example.com:443). Anything else (another scheme, a path, a query,
// user info, a malformed host or port) is an EntryError naming field. It
// is pure.
func ParseEntry(field, s string) ([]policy.HostPattern, error) {
	bad := func(reason string) ([]policy.HostPattern, error) {
		return nil, &EntryError{Field: field, Entry: s, Reason: reason}
	}
	in := strings.TrimSpace(s)
	if in == "" {
		return bad("empty entry")
	}
	var forms []string
	if strings.Contains(in, "://") {
		u, err := url.Parse(in)
		if err != nil {
			return bad("not a host or an http(s) URL: " + err.Error())
		}
		def := ""
		switch strings.ToLower(u.Scheme) {
		case "http":
			def = "80"
		case "https":
			def = "443"
		default:
			return bad(fmt.Sprintf("scheme %q: write host:port, or an http:// or https:// URL without a path", u.Scheme))
		}
		if u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
			return bad("a path, query or user info cannot be enforced on a connection: write the host (and port) only")
		}
		host, port := u.Hostname(), u.Port()
		if port == "" {
			port = def
		}
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		forms = []string{host + ":" + port}
	} else if host, ok := withoutPort(in); ok {
		for _, p := range defaultPorts {
			forms = append(forms, host+":"+p)
		}
	} else {
		forms = []string{in}
	}
	out := make([]policy.HostPattern, 0, len(forms))
	for _, f := range forms {
		p, err := policy.ParseHostPattern(f)
		if err != nil {
			return bad(err.Error())
		}
		out = append(out, p)
	}
	return out, nil
}

// withoutPort reports whether s is a host written without a port (a
// name, "*.name", "[v6]" or a bare IPv6 address), returned in the form
// that takes ":port" (an IPv6 address in brackets).
func withoutPort(s string) (string, bool) {
	if strings.HasPrefix(s, "[") {
		return s, strings.HasSuffix(s, "]")
	}
	if strings.Count(s, ":") > 1 {
		if a, err := netip.ParseAddr(s); err == nil && a.Zone() == "" {
			return "[" + s + "]", true
		}
		return s, false
	}
	return s, !strings.Contains(s, ":")
}

// AllowList is a set of allowed destinations. The zero value allows
// nothing.
type AllowList struct {
	entries []policy.HostPattern
}

// ParseAllowList parses entries (each as ParseEntry), naming a bad one as
// field[i]. Duplicates after normalisation are kept once.
func ParseAllowList(field string, entries []string) (AllowList, error) {
	var l AllowList
	for i, s := range entries {
		es, err := ParseEntry(fmt.Sprintf("%s[%d]", field, i), s)
		if err != nil {
			return AllowList{}, err
		}
		l = l.With(es...)
	}
	return l, nil
}

// With returns l with es added (duplicates kept once); l is unchanged.
func (l AllowList) With(es ...policy.HostPattern) AllowList {
	out := AllowList{entries: slices.Clone(l.entries)}
	for _, e := range es {
		if !slices.Contains(out.entries, e) {
			out.entries = append(out.entries, e)
		}
	}
	return out
}

// Entries returns the list's entries in the order added.
func (l AllowList) Entries() []policy.HostPattern { return slices.Clone(l.entries) }

// Strings returns the entries as host:port strings.
func (l AllowList) Strings() []string {
	out := make([]string, 0, len(l.entries))
	for _, e := range l.entries {
		out = append(out, e.String())
	}
	return out
}

// Allows reports whether host:port is allowed (policy.HostPattern.Match
// of any entry).
func (l AllowList) Allows(host string, port int) bool {
	for _, e := range l.entries {
		if e.Match(host, port) {
			return true
		}
	}
	return false
}

// Names are the entries' host names that are neither addresses, nor
// wildcards, nor localhost (the run's own loopback), once each, in order:
// what a run's /etc/hosts maps to the proxy for clients that ignore the
// proxy variables.
func (l AllowList) Names() []string {
	var out []string
	for _, e := range l.entries {
		h := e.Host()
		if _, err := netip.ParseAddr(h); err == nil || strings.HasPrefix(h, "*") || h == "localhost" || slices.Contains(out, h) {
			continue
		}
		out = append(out, h)
	}
	return out
}
