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
