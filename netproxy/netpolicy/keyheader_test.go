package netpolicy

import (
	"net/http"
	"testing"
)

// TestSetKey: each API's key header gets the key and the other is
// removed; a client that sends both, or its own key in the other
// header, still sends the key once, in the header its API reads.
func TestSetKey(t *testing.T) {
	for _, tc := range []struct {
		name         string
		in           map[string]string
		auth, apiKey string
	}{
		{"openai", map[string]string{"Authorization": "Bearer " + Placeholder}, "Bearer K", ""},
		{"openai without a key", map[string]string{}, "Bearer K", ""},
		{"anthropic", map[string]string{"X-Api-Key": Placeholder, "Anthropic-Version": "2023-06-01"}, "", "K"},
		{"anthropic by version alone", map[string]string{"Anthropic-Version": "2023-06-01"}, "", "K"},
		{"anthropic with a bearer token", map[string]string{"Authorization": "Bearer " + Placeholder, "Anthropic-Version": "2023-06-01"}, "", "K"},
		{"both headers", map[string]string{"Authorization": "Bearer x", "X-Api-Key": "y"}, "", "K"},
		{"lower-case names", map[string]string{"x-api-key": Placeholder}, "", "K"},
	} {
		h := http.Header{}
		for k, v := range tc.in {
			h.Set(k, v)
		}
		SetKey(h, "K")
		if h.Get("Authorization") != tc.auth || h.Get("X-Api-Key") != tc.apiKey || len(h.Values("X-Api-Key")) > 1 || len(h.Values("Authorization")) > 1 {
			t.Errorf("%s: Authorization %q, x-api-key %q", tc.name, h.Values("Authorization"), h.Values("X-Api-Key"))
		}
	}
}
