package policy

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestParseHostPatternNormalises(t *testing.T) {
	tests := []struct{ in, want string }{
		{"mirror.local:8080", "mirror.local:8080"},
		{"  Mirror.LOCAL.:8080 ", "mirror.local:8080"},
		{"*.mirror.local:443", "*.mirror.local:443"},
		{"*.Mirror.Local.:*", "*.mirror.local:*"},
		{"127.0.0.1:*", "127.0.0.1:*"},
		{"*:*", "*:*"},
		{"*:443", "*:443"},
		{"[::1]:8080", "[::1]:8080"},
		{"[0:0:0:0:0:0:0:1]:80", "[::1]:80"},
		{"[::ffff:127.0.0.1]:80", "127.0.0.1:80"},
		{"pypi_mirror:3141", "pypi_mirror:3141"},
		{"localhost:08080", "localhost:8080"},
		{"x1.example:65535", "x1.example:65535"},
	}
	for _, tt := range tests {
		p, err := ParseHostPattern(tt.in)
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if p.String() != tt.want {
			t.Errorf("%q normalised to %q, want %q", tt.in, p.String(), tt.want)
		}
		// The normal form is a fixed point.
		if q, err := ParseHostPattern(p.String()); err != nil || q != p {
			t.Errorf("%q: normal form %q reparses as %v, %v", tt.in, p.String(), q, err)
		}
	}
}

func TestParseHostPatternRejects(t *testing.T) {
	tests := []struct{ in, msg string }{
		{"", "empty"},
		{"   ", "empty"},
		{"https://mirror.local:443", `has a scheme ("https://")`},
		{"mirror.local:443/simple", "has a path"},
		{"mirror.local/simple", "has a path"},
		{"mirror.local:443?x=1", "has a path"},
		{"user:pw@mirror.local:443", "user information"},
		{"mirror.local", "needs a port"},
		{"mirror.local:", "needs a port"},
		{"[::1]", "needs a port"},
		{":443", "has no host"},
		{"mirror.local:0", "not a number 1-65535"},
		{"mirror.local:65536", "not a number 1-65535"},
		{"mirror.local:-1", "not a number 1-65535"},
		{"mirror.local:+80", "not a number 1-65535"},
		{"mirror.local:http", "not a number 1-65535"},
		{"mirror.local:8*", "not a number 1-65535"},
		{"mirror.local:123456", "not a number 1-65535"},
		{"mir*ror.local:80", `"*" is only allowed`},
		{"a.*.local:80", `"*" is only allowed`},
		{"*.*.local:80", "not a host name"},
		{"**.local:80", `"*" is only allowed`},
		{"*.:80", "not a host name"},
		{"*.10:80", "may not end in a number"},
		{"10.*:80", `"*" is only allowed`},
		{"127.1:80", "may not end in a number"},
		{"0x7f.1:80", "may not end in a number"},
		{"::1:80", "brackets"},
		{"[fe80::1%eth0]:80", "not an IPv6 address"},
		{"[127.0.0.1]:80", "not an IPv6 address"},
		{"[::1:80", "unclosed"},
		{"[::1]x:80", "unexpected"},
		{"mirror..local:80", "label is empty"},
		{strings.Repeat("a", 64) + ".local:80", "longer than 63"},
		{strings.Repeat("a.", 127) + "aa:80", "bytes long"},
		{"bücher.example:80", "xn--"},
		{"mirror local:80", "not a host name"},
		{"mirror.local\x00:80", "not a host name"},
		{strings.Repeat("a", 400) + ":80", "at most 300"},
	}
	for _, tt := range tests {
		_, err := ParseHostPattern(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%q: want an error containing %q, got %v", tt.in, tt.msg, err)
		}
	}
}

func TestHostPatternMatch(t *testing.T) {
	tests := []struct {
		pat  string
		host string
		port int
		want bool
	}{
		{"mirror.local:8080", "mirror.local", 8080, true},
		{"mirror.local:8080", "MIRROR.local.", 8080, true},
		{"mirror.local:8080", "mirror.local", 8081, false},
		{"mirror.local:8080", "evil-mirror.local", 8080, false},
		{"mirror.local:8080", "mirror.local.evil", 8080, false},
		{"mirror.local:*", "mirror.local", 1, true},
		{"mirror.local:*", "mirror.local", 0, false},
		{"mirror.local:*", "mirror.local", 70000, false},
		{"*.mirror.local:443", "a.mirror.local", 443, true},
		{"*.mirror.local:443", "a.b.mirror.local", 443, true},
		{"*.mirror.local:443", "mirror.local", 443, false},
		{"*.mirror.local:443", "evilmirror.local", 443, false},
		{"*.mirror.local:443", "a.mirror.local", 80, false},
		{"127.0.0.1:*", "127.0.0.1", 5000, true},
		{"127.0.0.1:*", "::ffff:127.0.0.1", 5000, true},
		{"127.0.0.1:*", "[::ffff:127.0.0.1]", 5000, true},
		{"127.0.0.1:*", "127.0.0.2", 5000, false},
		{"127.0.0.1:*", "localhost", 5000, false}, // names are not resolved
		{"localhost:80", "127.0.0.1", 80, false},
		{"127.0.0.1:80", "127.1", 80, false}, // not a canonical address, not a name
		{"[::1]:80", "::1", 80, true},
		{"[::1]:80", "[0::1]", 80, true},
		{"*:*", "anything.example", 9, true},
		{"*:*", "10.0.0.1", 9, true},
		{"*:*", "not a host", 9, false},
		{"*:*", "", 9, false},
		{"*.local:*", "10.0.0.1", 9, false},
	}
	for _, tt := range tests {
		if got := MustHostPattern(tt.pat).Match(tt.host, tt.port); got != tt.want {
			t.Errorf("%s.Match(%q, %d) = %v, want %v", tt.pat, tt.host, tt.port, got, tt.want)
		}
	}
}

func TestHostPatternCoversAndOverlaps(t *testing.T) {
	tests := []struct {
		p, q             string
		covers, overlaps bool
	}{
		{"a.local:80", "a.local:80", true, true},
		{"a.local:*", "a.local:80", true, true},
		{"a.local:80", "a.local:*", false, true},
		{"a.local:80", "a.local:81", false, false},
		{"*.local:80", "a.local:80", true, true},
		{"a.local:80", "*.local:80", false, true},
		{"*.local:80", "*.a.local:80", true, true},
		{"*.a.local:80", "*.local:80", false, true},
		{"*.local:80", "*.local:80", true, true},
		{"*.a.local:80", "*.b.local:80", false, false},
		{"*.local:80", "local:80", false, false},
		{"*:*", "*.local:80", true, true},
		{"*.local:80", "*:*", false, true},
		{"*:80", "127.0.0.1:80", true, true},
		{"*.local:80", "127.0.0.1:80", false, false},
		{"127.0.0.1:*", "127.0.0.1:5000", true, true},
		{"127.0.0.1:80", "localhost:80", false, false},
		{"[::1]:80", "127.0.0.1:80", false, false},
	}
	for _, tt := range tests {
		p, q := MustHostPattern(tt.p), MustHostPattern(tt.q)
		if got := p.Covers(q); got != tt.covers {
			t.Errorf("%s.Covers(%s) = %v, want %v", tt.p, tt.q, got, tt.covers)
		}
		if got := p.Overlaps(q); got != tt.overlaps {
			t.Errorf("%s.Overlaps(%s) = %v, want %v", tt.p, tt.q, got, tt.overlaps)
		}
		if p.Overlaps(q) != q.Overlaps(p) {
			t.Errorf("Overlaps(%s, %s) is not symmetric", tt.p, tt.q)
		}
	}
}

func TestParseHostPortAndNormaliseHost(t *testing.T) {
	h, port, err := ParseHostPort("Mirror.Local:8080")
	if err != nil || h != "mirror.local" || port != 8080 {
		t.Fatalf("ParseHostPort = %q %d %v", h, port, err)
	}
	if _, _, err := ParseHostPort("mirror.local:*"); err == nil || !strings.Contains(err.Error(), "wildcard") {
		t.Fatalf("a wildcard endpoint: %v", err)
	}
	if _, _, err := ParseHostPort("*.local:80"); err == nil {
		t.Fatal("a wildcard host endpoint was accepted")
	}
	for in, want := range map[string]string{"[::FFFF:10.0.0.1]": "10.0.0.1", "Example.COM.": "example.com", "::1": "::1"} {
		if got, err := NormaliseHost(in); err != nil || got != want {
			t.Errorf("NormaliseHost(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := NormaliseHost("a b"); err == nil {
		t.Error("NormaliseHost accepted a space")
	}
}

func TestHostPatternText(t *testing.T) {
	var v struct{ Hosts []HostPattern }
	if err := json.Unmarshal([]byte(`{"Hosts":["A.local:80","[::1]:*"]}`), &v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(v)
	if string(out) != `{"Hosts":["a.local:80","[::1]:*"]}` {
		t.Fatalf("round trip: %s", out)
	}
	if err := json.Unmarshal([]byte(`{"Hosts":["https://a.local"]}`), &v); err == nil || !strings.Contains(err.Error(), "scheme") {
		t.Fatalf("a scheme was accepted: %v", err)
	}
}

func TestIntersectHosts(t *testing.T) {
	tests := []struct {
		a, b []string
		want []string
	}{
		{[]string{"mirror:8080"}, []string{"mirror:8080"}, []string{"mirror:8080"}},
		{[]string{"*:*"}, []string{"mirror:8080", "[::1]:80"}, []string{"mirror:8080", "[::1]:80"}},
		{[]string{"*.x.test:443"}, []string{"a.x.test:*", "x.test:443", "b.y.test:443"}, []string{"a.x.test:443"}},
		{[]string{"*.x.test:*"}, []string{"*.a.x.test:8080"}, []string{"*.a.x.test:8080"}},
		{[]string{"mirror:*", "sink:9000"}, []string{"mirror:8080", "mirror:8081"}, []string{"mirror:8080", "mirror:8081"}},
		{[]string{"mirror:8080"}, []string{"mirror:8081", "127.0.0.1:8080"}, []string{}},
		{nil, []string{"mirror:8080"}, []string{}},
	}
	for _, tt := range tests {
		got := HostStrings(IntersectHosts(hosts(tt.a...), hosts(tt.b...)))
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("IntersectHosts(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		// Every host:port the result matches, both lists match.
		for _, r := range IntersectHosts(hosts(tt.a...), hosts(tt.b...)) {
			if !anyCovers(hosts(tt.a...), r) || !anyCovers(hosts(tt.b...), r) {
				t.Errorf("%s is not inside both %v and %v", r, tt.a, tt.b)
			}
		}
	}
}
