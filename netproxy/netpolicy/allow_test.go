package netpolicy

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseEntry(t *testing.T) {
	cases := []struct {
		in   string
		want []string // Entry.String of each
		err  string   // part of the error
	}{
		{in: "pypi.org", want: []string{"pypi.org:80", "pypi.org:443"}},
		{in: " PyPI.Org. ", want: []string{"pypi.org:80", "pypi.org:443"}},
		{in: "api.openai.com:443", want: []string{"api.openai.com:443"}},
		{in: "127.0.0.1:8080", want: []string{"127.0.0.1:8080"}},
		{in: "localhost:*", want: []string{"localhost:*"}},
		{in: "[::1]:9000", want: []string{"[::1]:9000"}},
		{in: "::1", want: []string{"[::1]:80", "[::1]:443"}},
		{in: "[::ffff:127.0.0.1]:5", want: []string{"127.0.0.1:5"}},
		{in: "*.github.com", want: []string{"*.github.com:80", "*.github.com:443"}},
		{in: "*.Example.com:22", want: []string{"*.example.com:22"}},
		{in: "https://api.openai.com", want: []string{"api.openai.com:443"}},
		{in: "https://api.openai.com/", want: []string{"api.openai.com:443"}},
		{in: "http://127.0.0.1:8000", want: []string{"127.0.0.1:8000"}},
		{in: "HTTP://Host.Example", want: []string{"host.example:80"}},
		{in: "https://api.openai.com/v1", err: "path"},
		{in: "https://user:pw@api.openai.com", err: "user info"},
		{in: "ftp://files.example.com", err: `scheme "ftp"`},
		{in: "pypi.org/simple", err: "path"},
		{in: "", err: "empty"},
		{in: "   ", err: "empty"},
		{in: "host:", err: "port"},
		{in: "host:0", err: "port"},
		{in: "host:65536", err: "port"},
		{in: "host:http", err: "port"},
		{in: "*:443", want: []string{"*:443"}},
		{in: "a*.example.com", err: "first label"},
		{in: "*.*.example.com", err: "not a host name"},
		{in: "*.10.0.0.1", err: "end in a number"},
		{in: "127.1:80", err: "end in a number"},
		{in: "exa mple.com", err: "exa mple.com"},
		{in: "bad!host", err: "bad!host"},
		{in: "[::1", err: "unclosed"},
		{in: "[::1]x", err: "after"},
		{in: "fe80::1%eth0", err: "brackets"},
		{in: strings.Repeat("a", 64) + ".com", err: "63"},
	}
	for _, c := range cases {
		got, err := ParseEntry("allowed_hosts[0]", c.in)
		if c.err != "" {
			var ee *EntryError
			if err == nil || !strings.Contains(err.Error(), c.err) || !errors.As(err, &ee) || !strings.HasPrefix(err.Error(), "allowed_hosts[0] ") {
				t.Errorf("ParseEntry(%q) = %v, %v; want an EntryError naming the field, with %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseEntry(%q): %v", c.in, err)
			continue
		}
		s := AllowList{}.With(got...).Strings()
		if !reflect.DeepEqual(s, c.want) {
			t.Errorf("ParseEntry(%q) = %v, want %v", c.in, s, c.want)
		}
	}
}

func TestAllowListAllows(t *testing.T) {
	l, err := ParseAllowList("allowed_hosts", []string{"api.openai.com:443", "*.pypi.org", "127.0.0.1:8080", "[::1]:*", "localhost:3000"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		host string
		port int
		want bool
	}{
		{"api.openai.com", 443, true},
		{"API.OpenAI.com.", 443, true},
		{"api.openai.com", 80, false},
		{"openai.com", 443, false},
		{"files.pypi.org", 443, true},
		{"a.b.pypi.org", 80, true},
		{"pypi.org", 443, false}, // the wildcard is below the domain only
		{"evilpypi.org", 443, false},
		{"files.pypi.org", 22, false},
		{"127.0.0.1", 8080, true},
		{"127.0.0.1", 8081, false},
		{"::ffff:127.0.0.1", 8080, true},
		{"::1", 1, true},
		{"0:0:0:0:0:0:0:1", 65535, true},
		{"localhost", 3000, true},
		{"localhost", 8080, false}, // names are not resolved to match
		{"", 443, false},
		{"bad host", 443, false},
	}
	for _, c := range cases {
		if got := l.Allows(c.host, c.port); got != c.want {
			t.Errorf("Allows(%q, %d) = %v, want %v", c.host, c.port, got, c.want)
		}
	}
	if got := (AllowList{}).Allows("localhost", 80); got {
		t.Error("the zero AllowList allows something")
	}
}

func TestParseAllowListNamesTheField(t *testing.T) {
	_, err := ParseAllowList("[agent] allowed_hosts", []string{"pypi.org", "https://x.org/simple"})
	if err == nil || !strings.HasPrefix(err.Error(), `[agent] allowed_hosts[1] "https://x.org/simple": `) {
		t.Fatalf("error %v does not name [agent] allowed_hosts[1]", err)
	}
	l, err := ParseAllowList("f", []string{"a.org:443", "A.org.:443", "b.org:1", "127.0.0.1:2", "*.c.org", "localhost:3"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := l.Strings(), []string{"a.org:443", "b.org:1", "127.0.0.1:2", "*.c.org:80", "*.c.org:443", "localhost:3"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Strings() = %v, want %v (duplicates once)", got, want)
	}
	if got, want := l.Names(), []string{"a.org", "b.org"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
}

func TestResolvePhase(t *testing.T) {
	hosts, _ := ParseAllowList("h", []string{"pypi.org:443"})
	extra, _ := ParseAllowList("--agent-allow-host", []string{"127.0.0.1:9000"})
	model := &ModelEndpoint{URL: "http://127.0.0.1:8080/v1", Key: "k"}
	cases := []struct {
		name     string
		in       PhaseInput
		mode     Mode
		allowAll bool
		hosts    []string
	}{
		{"legacy allow_internet true", PhaseInput{Legacy: true}, Public, false, []string{}},
		{"legacy allow_internet false", PhaseInput{}, NoNetwork, false, []string{}},
		{"environment over legacy", PhaseInput{Legacy: true, Environment: NoNetwork}, NoNetwork, false, []string{}},
		{"phase over environment", PhaseInput{Environment: NoNetwork, Phase: Allowlist, AllowedHosts: hosts}, Allowlist, false, []string{"pypi.org:443"}},
		{"allowed_hosts ignored unless allowlist", PhaseInput{Phase: NoNetwork, AllowedHosts: hosts}, NoNetwork, false, []string{}},
		{"flag makes no-network an allowlist", PhaseInput{Phase: NoNetwork, Extra: extra}, Allowlist, false, []string{"127.0.0.1:9000"}},
		{"flag narrows public", PhaseInput{Legacy: true, Extra: extra}, Allowlist, false, []string{"127.0.0.1:9000"}},
		{"flag adds to allowlist", PhaseInput{Phase: Allowlist, AllowedHosts: hosts, Extra: extra}, Allowlist, false, []string{"pypi.org:443", "127.0.0.1:9000"}},
		{"model into no-network", PhaseInput{Model: model}, Allowlist, false, []string{"127.0.0.1:8080"}},
		{"model into allowlist", PhaseInput{Phase: Allowlist, AllowedHosts: hosts, Model: model}, Allowlist, false, []string{"pypi.org:443", "127.0.0.1:8080"}},
		{"model keeps public, mediated", PhaseInput{Legacy: true, Model: model}, Public, true, []string{}},
	}
	for _, c := range cases {
		p, err := ResolvePhase(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if p.Mode != c.mode || p.AllowAll != c.allowAll || !reflect.DeepEqual(p.Hosts, c.hosts) {
			t.Errorf("%s: got %s allow_all=%v %v, want %s %v %v", c.name, p.Mode, p.AllowAll, p.Hosts, c.mode, c.allowAll, c.hosts)
		}
		if p.Mediated() != (c.mode != Public || c.allowAll) {
			t.Errorf("%s: Mediated() = %v", c.name, p.Mediated())
		}
	}
	if _, err := ResolvePhase(PhaseInput{Model: &ModelEndpoint{URL: "ftp://x"}}); err == nil {
		t.Error("a model endpoint with scheme ftp was accepted")
	}
	if _, err := ParseMode("[agent] network_mode", "bridge"); err == nil || !strings.Contains(err.Error(), "[agent] network_mode") {
		t.Errorf("ParseMode(bridge) = %v, want an error naming the field", err)
	}
}

func TestModelEndpointTarget(t *testing.T) {
	cases := []struct {
		url   string
		host  string
		port  int
		plain bool
		bad   bool
	}{
		{url: "http://127.0.0.1:8080/v1", host: "127.0.0.1", port: 8080, plain: true},
		{url: "https://API.openai.com/v1", host: "api.openai.com", port: 443},
		{url: "http://model.local", host: "model.local", port: 80, plain: true},
		{url: "http://[::1]:7/v1", host: "::1", port: 7, plain: true},
		{url: "unix:///sock", bad: true},
		{url: "http://h:99999", bad: true},
		{url: "http://:80", bad: true},
	}
	for _, c := range cases {
		host, port, plain, err := ModelEndpoint{URL: c.url}.Target()
		if c.bad != (err != nil) || (!c.bad && (host != c.host || port != c.port || plain != c.plain)) {
			t.Errorf("target(%q) = %q %d %v %v", c.url, host, port, plain, err)
		}
	}
}
