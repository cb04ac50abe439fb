package netpolicy

import "net/http"

// SetKey puts the endpoint's key into the headers of a request the key
// applies to (KeyApplies), in the header the request's API reads it
// from: Anthropic's Messages API (a request naming it with an x-api-key
// or anthropic-version header) takes it as x-api-key, OpenAI's APIs
// (chat completions, Responses) as a bearer Authorization. The other
// key header is removed, so that the placeholder the client held goes
// nowhere beside the key.
func SetKey(h http.Header, key string) {
	if h.Get("X-Api-Key") != "" || h.Get("Anthropic-Version") != "" {
		h.Del("Authorization")
		h.Set("X-Api-Key", key)
		return
	}
	h.Del("X-Api-Key")
	h.Set("Authorization", "Bearer "+key)
}
