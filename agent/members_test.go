package agent_test

import (
	"strings"
	"testing"

	"github.com/authbench/authbench/agent/modelconfig"
)

func TestMemberPolicyBaseURL(t *testing.T) {
	p := modelconfig.MemberPolicy{AllowedBaseURLs: []string{"http://127.0.0.1:8080/v1", "https://API.example.com/", "http://[::1]:9000/a/b/"}}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		url string
		ok  bool
	}{
		{"http://127.0.0.1:8080/v1", true},
		{"http://127.0.0.1:8080/v1/", true},
		{"http://127.0.0.1:8080/v1/models/x", true},
		{"http://127.0.0.1:8080/v10", false},
		{"http://127.0.0.1:8080/", false},
		{"http://127.0.0.1:8081/v1", false},
		{"https://127.0.0.1:8080/v1", false},
		{"http://localhost:8080/v1", false},
		{"http://127.0.0.1:8080/v1/../admin", false},
		{"http://127.0.0.1:8080/v1/%2e%2e/admin", false},
		{"http://127.0.0.1:8080/v1//x", false},
		{"http://127.0.0.1:8080/v1?x=1", false},
		{"http://127.0.0.1:8080/v1#f", false},
		{"http://u:p@127.0.0.1:8080/v1", false},
		{"https://api.example.com/anything", true},
		{"https://api.example.com:443/v1", true},
		{"http://api.example.com/v1", false},
		{"https://api.example.com.evil.net/v1", false},
		{"http://[0:0::1]:9000/a/b/c", true},
		{"http://[::1]:9000/a", false},
		{"ftp://127.0.0.1:8080/v1", false},
		{"http://169.254.169.254/latest", false},
	}
	for _, c := range cases {
		err := p.AllowsBaseURL(c.url)
		if (err == nil) != c.ok {
			t.Errorf("%s: allowed %v, want %v (%v)", c.url, err == nil, c.ok, err)
		}
	}
	if err := (modelconfig.MemberPolicy{}).AllowsBaseURL("http://127.0.0.1:8080/v1"); err == nil || !strings.Contains(err.Error(), "allowed_base_urls is empty") {
		t.Errorf("no list: %v", err)
	}
	if err := (modelconfig.MemberPolicy{AllowedBaseURLs: []string{"http://h/v1?x"}}).Check(); err == nil {
		t.Error("an entry with a query was accepted")
	}
}

func TestMemberPolicyLimits(t *testing.T) {
	p := modelconfig.MemberPolicy{MaxTurns: 20}
	if _, err := p.Limit(modelconfig.Config{MaxTurns: 10_000}); err == nil || !strings.Contains(err.Error(), "member_max_turns") {
		t.Errorf("10000 turns: %v", err)
	}
	if _, err := p.Limit(modelconfig.Config{MaxHistoryBytes: 1 << 30}); err == nil || !strings.Contains(err.Error(), "member_max_history_bytes") {
		t.Errorf("1 GiB history: %v", err)
	}
	c, err := p.Limit(modelconfig.Config{})
	if err != nil || c.MaxTurns != 20 || c.MaxHistoryBytes != modelconfig.DefaultMaxHistoryBytes {
		t.Errorf("defaults: %+v %v", c, err)
	}
	if c, err := (modelconfig.MemberPolicy{}).Limit(modelconfig.Config{MaxTurns: 50}); err != nil || c.MaxTurns != 50 {
		t.Errorf("within the default limit: %+v %v", c, err)
	}
}
