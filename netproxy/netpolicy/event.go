package netpolicy

import (
	"net"
	"strconv"
)

// OpConnect is the op of every network event.
const OpConnect = "connect"

// How a connection reached the proxy (Event.Via).
const (
	// ViaHTTP: an absolute-URI request to the proxy (HTTP_PROXY); one
	// event per request.
	ViaHTTP = "http_proxy"
	// ViaConnect: a CONNECT tunnel (HTTPS_PROXY, ALL_PROXY).
	ViaConnect = "connect"
	// ViaTransparent: a connection that ignored the proxy variables,
	// redirected to the proxy inside the run's network namespace.
	ViaTransparent = "transparent"
)

// Event is one connection attempt seen by a run's proxy (package
// netproxy), written as one JSON line of the run's network events
// (docs/trace-events.md, "Network events").
type Event struct {
	// TS is when the attempt was accepted (Unix ns).
	TS int64 `json:"ts"`
	// Op is always OpConnect.
	Op string `json:"op"`
	// Phase is the run's phase (setup, agent, verifier).
	Phase Phase `json:"phase"`
	// PID is the connecting process (host pid namespace), 0 when it
	// could not be found (it exited, or its socket moved).
	PID int `json:"pid"`
	// Origin is whose process connected (OriginAgent, OriginVerifier,
	// ServiceOrigin(name), OriginUnknown), "" when the proxy was given
	// no way to tell (Config.Origin unset).
	Origin string `json:"origin,omitempty"`
	// Host and Port are the destination as the client named it: the
	// name of a proxy request, the allowed name a transparent
	// connection's address stands for, else the address.
	Host string `json:"host"`
	Port int    `json:"port"`
	// Via is how it reached the proxy (ViaHTTP, ViaConnect,
	// ViaTransparent).
	Via string `json:"via"`
	// Local: the destination was a service of the run's own network
	// namespace (a compose sidecar on loopback), always allowed.
	Local bool `json:"local,omitempty"`
	// Allowed is the policy's decision; Reason says why a refused one
	// was refused (refused by policy: Allowed false). An allowed attempt
	// may still fail (Error): nothing listened, the name did not
	// resolve, the dial failed; that is not a refusal.
	Allowed bool   `json:"allowed"`
	Reason  string `json:"reason,omitempty"`
	// Addr is the address dialled for an allowed attempt; Error the
	// failure to resolve, dial or relay, if any.
	Addr  string `json:"addr,omitempty"`
	Error string `json:"error,omitempty"`
	// Method and Path are an HTTP request's (ViaHTTP, and plain HTTP to
	// the model endpoint); SNI is the server name of a TLS client hello
	// seen on a tunnel or transparent connection.
	Method string `json:"method,omitempty"`
	Path   string `json:"path,omitempty"`
	SNI    string `json:"sni,omitempty"`
	// KeyInjected: the proxy set the model endpoint's Authorization.
	KeyInjected bool `json:"key_injected,omitempty"`
	// KeyWithheld: a request to the model endpoint outside its base
	// URL's path or methods, sent on without the key.
	KeyWithheld bool `json:"key_withheld,omitempty"`
	// BytesOut went from the client to the destination, BytesIn back.
	BytesOut int64 `json:"bytes_out"`
	BytesIn  int64 `json:"bytes_in"`
	// DurationMS is from acceptance to close.
	DurationMS float64 `json:"duration_ms"`
	// IdleClosed: the proxy closed it after IdleTimeout without traffic.
	IdleClosed bool `json:"idle_closed,omitempty"`
}

// The origins of an event (Event.Origin): whose process connected,
// found from the connecting pid by the run (its pid namespace compared
// with the run's containers').
const (
	// OriginAgent: a process of the agent's containers.
	OriginAgent = "agent"
	// OriginVerifier: a process of the verifiers' containers.
	OriginVerifier = "verifier"
	// OriginUnknown: the process was not found (pid 0: it exited, or
	// its socket moved) or belongs to none of the run's containers.
	OriginUnknown = "unknown"
	// originService prefixes a compose service's origin (ServiceOrigin).
	originService = "service:"
)

// ServiceOrigin is the origin of the compose service name's processes
// (its command, its health checks): "service:NAME".
func ServiceOrigin(name string) string { return originService + name }

// IsService reports whether origin is a compose service's, and which.
func IsService(origin string) (string, bool) {
	if len(origin) > len(originService) && origin[:len(originService)] == originService {
		return origin[len(originService):], true
	}
	return "", false
}

// Agents reports whether e is the agent's own attempt: made in the agent
// phase by a process of the agent's containers, or by one the run could
// not place (OriginUnknown, or no origin recorded: an agent cannot hide
// an attempt by exiting before it is found). A compose service's or a
// verifier's attempt, and anything of the setup phase, is not the
// agent's: it counts in neither its denials nor its exposure nor the
// network it is recorded to need (docs/trace-events.md, "Network
// events").
func (e Event) Agents() bool {
	if e.Phase != PhaseAgent {
		return false
	}
	switch e.Origin {
	case "", OriginAgent, OriginUnknown:
		return true
	}
	return false
}

// Reached reports whether e was allowed and connected (no error).
func (e Event) Reached() bool { return e.Allowed && e.Error == "" }

// Target is the event's destination as host:port.
func (e Event) Target() string { return net.JoinHostPort(e.Host, strconv.Itoa(e.Port)) }

// Summary is a run's network events in brief, for its record.
type Summary struct {
	Attempts int `json:"attempts"`
	Refused  int `json:"refused"`
	// Dropped events past the log's bound (counted, not kept).
	Dropped  int   `json:"dropped,omitempty"`
	BytesOut int64 `json:"bytes_out"`
	BytesIn  int64 `json:"bytes_in"`
}

// Summarize counts events (pure).
func Summarize(events []Event, dropped int) Summary {
	s := Summary{Attempts: len(events) + dropped, Dropped: dropped}
	for _, e := range events {
		if !e.Allowed {
			s.Refused++
		}
		s.BytesOut += e.BytesOut
		s.BytesIn += e.BytesIn
	}
	return s
}
