package netproxy

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// AnyPort is the Port of an entry that allows every port ("host:*").
const AnyPort = 0

// Entry is one allowed destination after normalisation: a host name
// (lower case, no trailing dot), an IP address (canonical form, no
// brackets) or a leading-label wildcard ("*.example.com", which matches
// every name below example.com but not example.com itself), and a port
// (AnyPort for every port).
type Entry struct {
	Host string `json:"host"`
	Port int    `json:"port"`
}

// String is the entry as host:port ("host:*" for any port; an IPv6
// address in brackets).
func (e Entry) String() string {
	p := "*"
	if e.Port != AnyPort {
		p = strconv.Itoa(e.Port)
	}
	return net.JoinHostPort(e.Host, p)
}

// Wildcard reports whether the entry's host is a "*.domain" pattern.
func (e Entry) Wildcard() bool { return strings.HasPrefix(e.Host, "*.") }

// Matches reports whether the entry allows host:port; host must be
// normalised (NormalizeHost).
func (e Entry) Matches(host string, port int) bool {
	if e.Port != AnyPort && e.Port != port {
		return false
	}
	if suffix, ok := strings.CutPrefix(e.Host, "*"); ok {
		return strings.HasSuffix(host, suffix) && len(host) > len(suffix)
	}
	return e.Host == host
}

// defaultPorts are the ports of an entry written without one, as
// Harbor's allowed_hosts names web hosts: HTTP and HTTPS.
var defaultPorts = []int{80, 443}

// EntryError is an allow-list entry that cannot be used; Field names
// where it came from (e.g. `[agent] allowed_hosts[2]` or
// `--agent-allow-host`).
type EntryError struct {
	Field, Entry, Reason string
}

func (e *EntryError) Error() string {
	return fmt.Sprintf("%s %q: %s", e.Field, e.Entry, e.Reason)
}

// ParseEntry normalises one allow-list entry written as "host",
// "host:port", "host:*", "[v6addr]:port", "*.domain[:port]", or a URL
// with an http/https scheme and no path ("https://api.example.com" is
// api.example.com:443). A host without a port allows ports 80 and 443.
// Anything else (another scheme, a path, a query, user info, an empty
// or malformed host, a bad port, "*" alone) is refused with an
// EntryError naming field. It is pure.
func ParseEntry(field, s string) ([]Entry, error) {
	bad := func(reason string) ([]Entry, error) {
		return nil, &EntryError{Field: field, Entry: s, Reason: reason}
	}
	in := strings.TrimSpace(s)
	if in == "" {
		return bad("empty entry")
	}
	var hostport string
	var ports []int
	if strings.Contains(in, "://") {
		u, err := url.Parse(in)
		if err != nil {
			return bad("not a host or an http(s) URL: " + err.Error())
		}
		var scheme int
		switch strings.ToLower(u.Scheme) {
		case "http":
			scheme = 80
		case "https":
			scheme = 443
		default:
			return bad(fmt.Sprintf("scheme %q: only a host[:port], or an http:// or https:// URL without a path", u.Scheme))
		}
		if u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
			return bad("a path, query or user info cannot be enforced on a connection: write the host (and port) only")
		}
		hostport, ports = u.Host, []int{scheme}
	} else {
		if strings.ContainsAny(in, "/?#@ \t") {
			return bad("a host[:port] has no path, query, user info or spaces")
		}
		hostport = in
	}
	host, port, err := splitHostPort(hostport)
	if err != nil {
		return bad(err.Error())
	}
	switch {
	case port == "*":
		ports = []int{AnyPort}
	case port != "":
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return bad(fmt.Sprintf("port %q: a number from 1 to 65535, or *", port))
		}
		ports = []int{n}
	case ports == nil:
		ports = defaultPorts
	}
	h, err := normalizePattern(host)
	if err != nil {
		return bad(err.Error())
	}
	out := make([]Entry, 0, len(ports))
	for _, p := range ports {
		out = append(out, Entry{Host: h, Port: p})
	}
	return out, nil
}

// splitHostPort splits "host", "host:port", "[v6]" and "[v6]:port"; a
// bare IPv6 address (more than one colon, no brackets) is a host without
// a port.
func splitHostPort(s string) (host, port string, err error) {
	switch {
	case strings.HasPrefix(s, "["):
		end := strings.Index(s, "]")
		if end < 0 {
			return "", "", fmt.Errorf("unclosed [ in %q", s)
		}
		host, rest := s[1:end], s[end+1:]
		if rest == "" {
			return host, "", nil
		}
		if !strings.HasPrefix(rest, ":") {
			return "", "", fmt.Errorf("unexpected %q after ]", rest)
		}
		return host, rest[1:], nil
	case strings.Count(s, ":") > 1:
		return s, "", nil
	}
	host, port, found := strings.Cut(s, ":")
	if found && port == "" {
		return "", "", fmt.Errorf("empty port")
	}
	return host, port, nil
}

// normalizePattern normalises an entry's host: an IP address to its
// canonical form, a name (or "*." + name) to lower case without a
// trailing dot, checked as a DNS name.
func normalizePattern(host string) (string, error) {
	if rest, ok := strings.CutPrefix(host, "*."); ok && !strings.Contains(rest, "*") {
		n, err := NormalizeHost(rest)
		if err != nil {
			return "", err
		}
		if _, isIP := netip.ParseAddr(n); isIP == nil {
			return "", fmt.Errorf("a wildcard covers names, not addresses")
		}
		return "*." + n, nil
	}
	if strings.Contains(host, "*") {
		return "", fmt.Errorf("a wildcard is only a whole leading label (*.example.com); to allow everything use network_mode = \"public\"")
	}
	return NormalizeHost(host)
}

// NormalizeHost returns host as the allow list compares it: an IP
// address in canonical form (IPv4-mapped IPv6 unmapped, no zone), a name
// in lower case without a trailing dot. A name must be a valid DNS name
// (labels of letters, digits, '-' and '_', at most 63 bytes each, 253 in
// all).
func NormalizeHost(host string) (string, error) {
	host = strings.TrimSuffix(strings.TrimSpace(host), ".")
	if host == "" {
		return "", fmt.Errorf("empty host")
	}
	if a, err := netip.ParseAddr(host); err == nil {
		if a.Zone() != "" {
			return "", fmt.Errorf("an address with a zone (%s) cannot be allowed", host)
		}
		return a.Unmap().String(), nil
	}
	host = strings.ToLower(host)
	if len(host) > 253 {
		return "", fmt.Errorf("host name longer than 253 bytes")
	}
	for _, label := range strings.Split(host, ".") {
		if label == "" || len(label) > 63 {
			return "", fmt.Errorf("host %q: empty label or label longer than 63 bytes", host)
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return "", fmt.Errorf("host %q: %q is not allowed in a host name", host, c)
			}
		}
	}
	return host, nil
}

// AllowList is a normalised set of allowed destinations. The zero value
// allows nothing.
type AllowList struct {
	entries []Entry
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
func (l AllowList) With(es ...Entry) AllowList {
	out := AllowList{entries: slices.Clone(l.entries)}
	for _, e := range es {
		if !slices.Contains(out.entries, e) {
			out.entries = append(out.entries, e)
		}
	}
	return out
}

// Entries returns the list's entries in the order added.
func (l AllowList) Entries() []Entry { return slices.Clone(l.entries) }

// Strings returns the entries as host:port strings.
func (l AllowList) Strings() []string {
	out := make([]string, 0, len(l.entries))
	for _, e := range l.entries {
		out = append(out, e.String())
	}
	return out
}

// Allows reports whether host:port is allowed; host is normalised first
// (an unparsable host is never allowed).
func (l AllowList) Allows(host string, port int) bool {
	h, err := NormalizeHost(host)
	if err != nil {
		return false
	}
	for _, e := range l.entries {
		if e.Matches(h, port) {
			return true
		}
	}
	return false
}

// Names are the entries' host names that are neither addresses, nor
// wildcards, nor localhost (the run's own loopback), once each, in order: what a run's /etc/hosts can map to the
// proxy for clients that ignore the proxy variables.
func (l AllowList) Names() []string {
	var out []string
	for _, e := range l.entries {
		if _, err := netip.ParseAddr(e.Host); err == nil || e.Wildcard() || e.Host == "localhost" || slices.Contains(out, e.Host) {
			continue
		}
		out = append(out, e.Host)
	}
	return out
}
