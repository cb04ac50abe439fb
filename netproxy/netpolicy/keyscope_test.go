package netpolicy

import "testing"

func TestKeyApplies(t *testing.T) {
	cases := []struct {
		prefix, method, path string
		want                 bool
	}{
		{"/v1", "POST", "/v1/chat/completions", true},
		{"/v1", "POST", "/v1/responses", true},
		{"/v1", "GET", "/v1/models", true},
		{"/v1", "POST", "/v1", true},
		{"/v1", "POST", "/v1/", true},
		{"/v1", "POST", "/admin/keys", false},
		{"/v1", "POST", "/v1evil/chat", false},
		{"/v1", "POST", "/v1/../admin", false},
		{"/v1", "POST", "/v1/./chat", false},
		{"/v1", "POST", "//v1/chat", false},
		{"/v1", "POST", "/v1//chat", false},
		{"/v1", "POST", "/v1/%2e%2e/admin", false},
		{"/v1", "POST", "/v1/%2E%2E/admin", false},
		{"/v1", "POST", "/v1%2f..%2fadmin", false},
		{"/v1", "POST", "/v1/..%5cadmin", false},
		{"/v1", "POST", "/v1/chat%00", false},
		{"/v1", "DELETE", "/v1/files/x", false},
		{"/v1", "PUT", "/v1/chat/completions", false},
		{"/v1", "post", "/v1/chat/completions", false},
		{"", "POST", "/anything", true},
		{"", "POST", "/a/../b", false},
		{"/api/openai/v1", "POST", "/api/openai/v1/chat/completions", true},
		{"/api/openai/v1", "POST", "/api/other", false},
	}
	for _, c := range cases {
		if got := KeyApplies(c.prefix, c.method, c.path); got != c.want {
			t.Errorf("KeyApplies(%q, %q, %q) = %v, want %v", c.prefix, c.method, c.path, got, c.want)
		}
	}
}

func TestKeyPrefix(t *testing.T) {
	for url, want := range map[string]string{
		"http://127.0.0.1:8080/v1":  "/v1",
		"http://127.0.0.1:8080/v1/": "/v1",
		"http://h":                  "",
		"http://h/":                 "",
		"https://h/api/openai/v1":   "/api/openai/v1",
	} {
		got, err := ModelEndpoint{URL: url}.KeyPrefix()
		if err != nil || got != want {
			t.Errorf("KeyPrefix(%q) = %q, %v; want %q", url, got, err, want)
		}
	}
	for _, url := range []string{"http://h/v1/../x", "http://h/a//b", "http://h/%2e%2e/v1"} {
		if _, err := (ModelEndpoint{URL: url}).KeyPrefix(); err == nil {
			t.Errorf("KeyPrefix(%q): no error", url)
		}
	}
}
