package netproxy

import (
	"strings"
	"testing"

	"github.com/authbench/authbench/netproxy/netpolicy"
)

// TestEscapeDaemonModelKeyOnlyBelowTheBaseURL: an agent that sends its
// requests to other paths of the model's host (a header-echoing server
// that would hand the key back), path tricks and other methods included,
// never gets the real key there; the base URL's own paths still do.
func TestEscapeDaemonModelKeyOnlyBelowTheBaseURL(t *testing.T) {
	model := newCountingServer(t, "echo")
	m := &netpolicy.ModelEndpoint{URL: model.URL + "/v1", Key: "sk-real-456"}
	pol, err := netpolicy.ResolvePhase(netpolicy.PhaseInput{Model: m})
	if err != nil {
		t.Fatal(err)
	}
	f := startFixture(t, Config{Policy: pol, Model: m})
	hostile := [][]string{
		{model.URL + "/admin/echo-headers"},
		{model.URL + "/v1evil/chat"},
		{"--path-as-is", model.URL + "/v1/../admin"},
		{"--path-as-is", model.URL + "/v1/%2e%2e/admin"},
		{"--path-as-is", model.URL + "//v1/chat/completions"},
		{"-X", "DELETE", model.URL + "/v1/files/x"},
		{"-X", "PUT", "--data", "{}", model.URL + "/v1/chat/completions"},
	}
	for _, args := range hostile {
		if out, _, err := f.curl(t, append([]string{"-H", "Authorization: Bearer " + netpolicy.Placeholder}, args...)...); err != nil {
			t.Fatalf("curl %v: %v %s", args, err, out)
		}
	}
	if out, _, err := f.curl(t, "--fail", "--data", "{}", model.URL+"/v1/chat/completions"); err != nil {
		t.Fatalf("the base URL's own path: %v %s", err, out)
	}
	auths := model.auths()
	if len(auths) != len(hostile)+1 {
		t.Fatalf("the server saw %d requests, want %d", len(auths), len(hostile)+1)
	}
	for i, a := range auths[:len(hostile)] {
		if strings.Contains(a, "sk-real") {
			t.Errorf("request %v got the real key: %q", hostile[i], a)
		}
	}
	if auths[len(hostile)] != "Bearer sk-real-456" {
		t.Errorf("the base URL's path got %q, want the real key", auths[len(hostile)])
	}
	evs := f.waitEvents(t, len(hostile)+1)
	withheld := 0
	for _, ev := range evs {
		if ev.KeyWithheld {
			withheld++
		}
	}
	if withheld != len(hostile) {
		t.Errorf("%d events say the key was withheld, want %d", withheld, len(hostile))
	}
}

// TestModelKeyAsAnthropicHeader: a harness speaking Anthropic's Messages
// API (x-api-key with the placeholder, anthropic-version) gets the real
// key as x-api-key below the base URL, and no Authorization beside it;
// elsewhere on the host its placeholder goes out untouched.
func TestModelKeyAsAnthropicHeader(t *testing.T) {
	model := newCountingServer(t, "{}")
	m := &netpolicy.ModelEndpoint{URL: model.URL + "/v1", Key: "sk-ant-real-789"}
	pol, err := netpolicy.ResolvePhase(netpolicy.PhaseInput{Model: m})
	if err != nil {
		t.Fatal(err)
	}
	f := startFixture(t, Config{Policy: pol, Model: m})
	anthropic := []string{"-H", "x-api-key: " + netpolicy.Placeholder, "-H", "anthropic-version: 2023-06-01", "--data", "{}"}
	for _, url := range []string{model.URL + "/v1/messages", model.URL + "/admin/echo-headers"} {
		if out, _, err := f.curl(t, append(anthropic, url)...); err != nil {
			t.Fatalf("curl %s: %v %s", url, err, out)
		}
	}
	model.mu.Lock()
	auth, keys := model.auth, model.apiKeys
	model.mu.Unlock()
	if len(keys) != 2 || keys[0] != "sk-ant-real-789" || auth[0] != "" {
		t.Errorf("the Messages path got x-api-key %q and Authorization %q, want the real key alone", keys, auth)
	}
	if len(keys) == 2 && (keys[1] != netpolicy.Placeholder || strings.Contains(auth[1], "sk-ant")) {
		t.Errorf("another path got x-api-key %q, Authorization %q", keys[1], auth[1])
	}
}
