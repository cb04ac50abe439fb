package netproxy

import (
	"testing"

	"github.com/authbench/authbench/netproxy/netpolicy"
)

// TestModelKeyForEachHarnessAPI: each model API an installed harness
// speaks, with the headers it sends (the placeholder as its key), gets
// the real key in the header that API reads and the placeholder nowhere:
// chat completions and Responses (Codex) a bearer Authorization,
// Messages (Claude Code: x-api-key and anthropic-version) x-api-key.
func TestModelKeyForEachHarnessAPI(t *testing.T) {
	model := newCountingServer(t, "{}")
	m := &netpolicy.ModelEndpoint{URL: model.URL + "/v1", Key: "sk-real-api-321"}
	pol, err := netpolicy.ResolvePhase(netpolicy.PhaseInput{Model: m})
	if err != nil {
		t.Fatal(err)
	}
	f := startFixture(t, Config{Policy: pol, Model: m})
	bearer := []string{"-H", "Authorization: Bearer " + netpolicy.Placeholder}
	cases := []struct {
		api          string
		args         []string
		auth, apiKey string
	}{
		{"chat completions", append(bearer, model.URL+"/v1/chat/completions"), "Bearer sk-real-api-321", ""},
		{"responses", append(bearer, model.URL+"/v1/responses"), "Bearer sk-real-api-321", ""},
		{"messages", []string{"-H", "x-api-key: " + netpolicy.Placeholder, "-H", "anthropic-version: 2023-06-01", model.URL + "/v1/messages"}, "", "sk-real-api-321"},
	}
	for _, tc := range cases {
		if out, _, err := f.curl(t, append([]string{"--fail", "--data", "{}"}, tc.args...)...); err != nil {
			t.Fatalf("%s: curl: %v %s", tc.api, err, out)
		}
	}
	model.mu.Lock()
	auth, keys := model.auth, model.apiKeys
	model.mu.Unlock()
	if len(auth) != len(cases) {
		t.Fatalf("the server saw %d requests, want %d", len(auth), len(cases))
	}
	for i, tc := range cases {
		if auth[i] != tc.auth || keys[i] != tc.apiKey {
			t.Errorf("%s: Authorization %q, x-api-key %q; want %q, %q", tc.api, auth[i], keys[i], tc.auth, tc.apiKey)
		}
	}
	for _, ev := range f.waitEvents(t, len(cases)) {
		if !ev.KeyInjected {
			t.Errorf("event %+v: the key was not injected", ev)
		}
	}
}
