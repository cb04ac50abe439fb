package policy

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// MaxHostPatternBytes bounds one network entry: a DNS name is at most
// 253 bytes, a port 5.
const MaxHostPatternBytes = 300

// AnyPort is the port of a pattern written "host:*".
const AnyPort = 0

// hostKind is what the host part of a HostPattern names.
type hostKind uint8

const (
	hostName     hostKind = iota // one DNS name: "mirror.local"
	hostAddr                     // one IP address: "127.0.0.1", "::1"
	hostSuffix                   // "*.mirror.local": names below the suffix
	hostAnything                 // "*": every name and address
)

// HostPattern is one normalised network entry "host:port" of a policy,
// a spec or an egress allow-list. It is the only host:port matcher of
// authbench: the network axis of static scoring and the run's egress
// proxy both call Match.
//
// The host is a DNS name (lower-cased, without a trailing dot), an IP
// address (canonical form; IPv6 written in brackets, "[::1]:443"), "*"
// (every host) or "*." followed by a name (every name with one or more
// labels before that name, not the name itself, no address). The port
// is a number 1-65535 or "*" (every port). Names are compared as names:
// a name never matches an address it may resolve to.
type HostPattern struct {
	kind hostKind
	host string // the name, the suffix without "*.", or the address
	addr netip.Addr
	port int // AnyPort: every port
}

// ParseHostPattern normalises s ("host:port", surrounding white space
// trimmed) and checks it. A scheme ("https://"), a path, user
// information, a missing port, a wildcard anywhere but as the whole
// port or the first label, and a name that ends in a number (which
// resolvers may read as an IPv4 address, "127.1") are errors that say
// so.
func ParseHostPattern(s string) (HostPattern, error) {
	if len(s) > MaxHostPatternBytes {
		return HostPattern{}, fmt.Errorf("network entry is %d bytes long (at most %d)", len(s), MaxHostPatternBytes)
	}
	t := strings.TrimSpace(s)
	if t == "" {
		return HostPattern{}, errors.New("network entry is empty")
	}
	if i := strings.Index(t, "://"); i >= 0 {
		return HostPattern{}, fmt.Errorf("network entry %q has a scheme (%q): write host:port", s, t[:i+3])
	}
	if strings.ContainsAny(t, "/?#") {
		return HostPattern{}, fmt.Errorf("network entry %q has a path: write host:port", s)
	}
	if strings.Contains(t, "@") {
		return HostPattern{}, fmt.Errorf("network entry %q has user information: write host:port", s)
	}
	hostPart, portPart, err := splitHostPort(t)
	if err != nil {
		return HostPattern{}, fmt.Errorf("network entry %q: %w", s, err)
	}
	p := HostPattern{}
	if portPart == "*" {
		p.port = AnyPort
	} else if p.port, err = parsePort(portPart); err != nil {
		return HostPattern{}, fmt.Errorf("network entry %q: %w", s, err)
	}
	switch {
	case hostPart == "*":
		p.kind = hostAnything
	case strings.HasPrefix(hostPart, "*."):
		name, err := normaliseName(hostPart[2:])
		if err != nil {
			return HostPattern{}, fmt.Errorf("network entry %q: %w", s, err)
		}
		p.kind, p.host = hostSuffix, name
	default:
		if strings.Contains(hostPart, "*") {
			return HostPattern{}, fmt.Errorf("network entry %q: \"*\" is only allowed as the whole port or the first label of a name (\"*.example.com\")", s)
		}
		kind, host, addr, err := normaliseHost(hostPart)
		if err != nil {
			return HostPattern{}, fmt.Errorf("network entry %q: %w", s, err)
		}
		p.kind, p.host, p.addr = kind, host, addr
	}
	return p, nil
}

// MustHostPattern is ParseHostPattern for entries known to be valid
// (tests, built-in lists); it panics on error.
func MustHostPattern(s string) HostPattern {
	p, err := ParseHostPattern(s)
	if err != nil {
		panic(err)
	}
	return p
}

// NormaliseHost returns host (a name or an IP address as a client asked
// for it, IPv6 with or without brackets) in the form HostPattern
// compares: a lower-cased name without a trailing dot, or an address in
// canonical form (an IPv4-mapped IPv6 address as IPv4).
func NormaliseHost(host string) (string, error) {
	h := host
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	}
	_, norm, _, err := normaliseHost(h)
	if err != nil {
		return "", fmt.Errorf("host %q: %w", host, err)
	}
	return norm, nil
}

// ParseHostPort parses one concrete endpoint "host:port" (no wildcard)
// and returns its normalised host and its port, with the rules of
// ParseHostPattern.
func ParseHostPort(s string) (host string, port int, err error) {
	p, err := ParseHostPattern(s)
	if err != nil {
		return "", 0, err
	}
	if !p.IsExact() {
		return "", 0, fmt.Errorf("endpoint %q has a wildcard", s)
	}
	return p.host, p.port, nil
}

// splitHostPort splits "host:port" and "[v6]:port".
func splitHostPort(t string) (host, port string, err error) {
	if strings.HasPrefix(t, "[") {
		end := strings.Index(t, "]")
		if end < 0 {
			return "", "", errors.New("unclosed \"[\"")
		}
		host, rest := t[1:end], t[end+1:]
		if rest == "" {
			return "", "", errors.New("needs a port (host:PORT, or host:* for every port)")
		}
		if !strings.HasPrefix(rest, ":") {
			return "", "", fmt.Errorf("unexpected %q after \"]\"", rest)
		}
		if _, err := netip.ParseAddr(host); err != nil || strings.Contains(host, "%") || !strings.Contains(host, ":") {
			return "", "", fmt.Errorf("%q in brackets is not an IPv6 address", host)
		}
		return host, rest[1:], nil
	}
	i := strings.LastIndex(t, ":")
	if i < 0 {
		return "", "", errors.New("needs a port (host:PORT, or host:* for every port)")
	}
	host, port = t[:i], t[i+1:]
	if strings.Contains(host, ":") {
		return "", "", errors.New("an IPv6 address must be written in brackets (\"[::1]:443\")")
	}
	if host == "" {
		return "", "", errors.New("has no host")
	}
	return host, port, nil
}

func parsePort(s string) (int, error) {
	if s == "" {
		return 0, errors.New("needs a port (host:PORT, or host:* for every port)")
	}
	if len(s) > 5 || strings.Trim(s, "0123456789") != "" {
		return 0, fmt.Errorf("port %q is not a number 1-65535 or \"*\"", s)
	}
	n, _ := strconv.Atoi(s)
	if n < 1 || n > 65535 {
		return 0, fmt.Errorf("port %q is not a number 1-65535 or \"*\"", s)
	}
	return n, nil
}

// normaliseHost normalises a concrete host: an IP address (no zone) or
// a DNS name.
func normaliseHost(h string) (hostKind, string, netip.Addr, error) {
	if h == "" {
		return 0, "", netip.Addr{}, errors.New("has no host")
	}
	if a, err := netip.ParseAddr(h); err == nil {
		if a.Zone() != "" {
			return 0, "", netip.Addr{}, fmt.Errorf("address %q has a zone", h)
		}
		a = a.Unmap()
		return hostAddr, a.String(), a, nil
	}
	name, err := normaliseName(h)
	if err != nil {
		return 0, "", netip.Addr{}, err
	}
	return hostName, name, netip.Addr{}, nil
}

// normaliseName lower-cases a DNS name, drops one trailing dot and
// checks its labels: 1-63 bytes of ASCII letters, digits, '-' and '_',
// at most 253 bytes in all, the last label not all digits.
func normaliseName(h string) (string, error) {
	name := strings.ToLower(strings.TrimSuffix(h, "."))
	if name == "" {
		return "", fmt.Errorf("%q is not a host name", h)
	}
	if len(name) > 253 {
		return "", fmt.Errorf("host name is %d bytes long (at most 253)", len(name))
	}
	labels := strings.Split(name, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 {
			return "", fmt.Errorf("%q is not a host name (a label is empty or longer than 63 bytes)", h)
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return "", fmt.Errorf("%q is not a host name (byte %q; write other names in their ASCII \"xn--\" form)", h, c)
			}
		}
	}
	if last := labels[len(labels)-1]; strings.Trim(last, "0123456789") == "" {
		return "", fmt.Errorf("%q is neither an IP address nor a host name (a name may not end in a number)", h)
	}
	return name, nil
}

// String returns the normalised entry: "mirror.local:8080",
// "*.mirror.local:*", "[::1]:443", "127.0.0.1:*".
func (p HostPattern) String() string {
	var host string
	switch p.kind {
	case hostAnything:
		host = "*"
	case hostSuffix:
		host = "*." + p.host
	case hostAddr:
		host = p.host
		if p.addr.Is6() {
			host = "[" + host + "]"
		}
	default:
		host = p.host
	}
	port := "*"
	if p.port != AnyPort {
		port = strconv.Itoa(p.port)
	}
	return host + ":" + port
}

// Host returns the normalised host part as written ("*", "*.NAME", a
// name or an address without brackets).
func (p HostPattern) Host() string {
	switch p.kind {
	case hostAnything:
		return "*"
	case hostSuffix:
		return "*." + p.host
	}
	return p.host
}

// Port returns the port, AnyPort for "*".
func (p HostPattern) Port() int { return p.port }

// IsExact reports whether the entry names one host and one port.
func (p HostPattern) IsExact() bool {
	return (p.kind == hostName || p.kind == hostAddr) && p.port != AnyPort
}

// IsZero reports whether p is the zero HostPattern (never parsed).
func (p HostPattern) IsZero() bool { return p == HostPattern{} }

// MarshalText writes the normalised entry.
func (p HostPattern) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText parses an entry with ParseHostPattern.
func (p *HostPattern) UnmarshalText(b []byte) error {
	q, err := ParseHostPattern(string(b))
	if err != nil {
		return err
	}
	*p = q
	return nil
}

// Match reports whether the connection to host:port (the host as the
// client asked for it: a name, or an address with or without brackets)
// is one the entry names. A host that is neither a valid name nor an
// address matches nothing, not even "*".
func (p HostPattern) Match(host string, port int) bool {
	if port < 1 || port > 65535 || p.port != AnyPort && p.port != port {
		return false
	}
	h := host
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	}
	kind, norm, _, err := normaliseHost(h)
	if err != nil {
		return false
	}
	return p.matchHost(kind, norm)
}

// matchHost matches a normalised concrete host.
func (p HostPattern) matchHost(kind hostKind, norm string) bool {
	switch p.kind {
	case hostAnything:
		return true
	case hostSuffix:
		return kind == hostName && strings.HasSuffix(norm, "."+p.host)
	}
	return kind == p.kind && norm == p.host
}

// Covers reports whether every host:port q matches p matches too.
func (p HostPattern) Covers(q HostPattern) bool {
	if p.port != AnyPort && p.port != q.port {
		return false
	}
	switch p.kind {
	case hostAnything:
		return true
	case hostSuffix:
		return q.kind == hostName && strings.HasSuffix(q.host, "."+p.host) ||
			q.kind == hostSuffix && (q.host == p.host || strings.HasSuffix(q.host, "."+p.host))
	}
	return q.kind == p.kind && q.host == p.host
}

// Overlaps reports whether some host:port matches both p and q.
func (p HostPattern) Overlaps(q HostPattern) bool {
	if p.port != AnyPort && q.port != AnyPort && p.port != q.port {
		return false
	}
	return p.overlapsHost(q) || q.overlapsHost(p)
}

// overlapsHost is Overlaps on the host part, exact when p is at least
// as wide a kind as q (callers try both orders).
func (p HostPattern) overlapsHost(q HostPattern) bool {
	switch p.kind {
	case hostAnything:
		return true
	case hostSuffix:
		switch q.kind {
		case hostName:
			return strings.HasSuffix(q.host, "."+p.host)
		case hostSuffix:
			return q.host == p.host || strings.HasSuffix(q.host, "."+p.host)
		}
		return false
	}
	return q.kind == p.kind && q.host == p.host
}

// MatchAnyHost reports whether an entry of list matches host:port.
func MatchAnyHost(list []HostPattern, host string, port int) bool {
	for _, p := range list {
		if p.Match(host, port) {
			return true
		}
	}
	return false
}

// Intersect returns the entry matching exactly what both p and q match,
// and false when they share no host:port.
func (p HostPattern) Intersect(q HostPattern) (HostPattern, bool) {
	port := p.port
	switch {
	case p.port == AnyPort:
		port = q.port
	case q.port != AnyPort && q.port != p.port:
		return HostPattern{}, false
	}
	pa, qa := p, q
	pa.port, qa.port = AnyPort, AnyPort
	var out HostPattern
	switch {
	case pa.Covers(qa):
		out = q
	case qa.Covers(pa):
		out = p
	default:
		return HostPattern{}, false
	}
	out.port = port
	return out, true
}

// IntersectHosts returns the host:port entries both lists allow: the
// pairwise intersections of their entries, without duplicates, in the
// order of a then b. It is how an environment's allow-list is narrowed
// to a policy's network entries.
func IntersectHosts(a, b []HostPattern) []HostPattern {
	out := []HostPattern{}
	seen := map[string]bool{}
	for _, p := range a {
		for _, q := range b {
			if r, ok := p.Intersect(q); ok && !seen[r.String()] {
				seen[r.String()] = true
				out = append(out, r)
			}
		}
	}
	return out
}
