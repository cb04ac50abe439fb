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
	// Phase is the run's phase (agent, verifier).
	Phase Phase `json:"phase"`
	// PID is the connecting process (host pid namespace), 0 when it
	// could not be found (it exited, or its socket moved).
	PID int `json:"pid"`
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
	// was refused.
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
	// BytesOut went from the client to the destination, BytesIn back.
	BytesOut int64 `json:"bytes_out"`
	BytesIn  int64 `json:"bytes_in"`
	// DurationMS is from acceptance to close.
	DurationMS float64 `json:"duration_ms"`
	// IdleClosed: the proxy closed it after IdleTimeout without traffic.
	IdleClosed bool `json:"idle_closed,omitempty"`
}

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
