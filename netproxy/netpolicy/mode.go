package netpolicy

import (
	"fmt"
	"net"
	"net/url"
	"strconv"

	"github.com/authbench/authbench/policy"
)

// Mode is Harbor's network_mode of a phase.
type Mode string

// The network modes (Harbor's names).
const (
	// Public: the host's network, unmediated (a task's allow_internet =
	// true before network_mode existed).
	Public Mode = "public"
	// NoNetwork: the run's private network namespace, loopback only; a
	// connection attempt to anything but the run's own loopback services
	// is refused by the proxy and recorded.
	NoNetwork Mode = "no-network"
	// Allowlist: egress only through the run's proxy to the allowed
	// host:port entries.
	Allowlist Mode = "allowlist"
)

// ParseMode parses a network_mode value; field names it in the error.
func ParseMode(field, s string) (Mode, error) {
	switch m := Mode(s); m {
	case Public, NoNetwork, Allowlist:
		return m, nil
	}
	return "", fmt.Errorf("%s = %q: one of \"public\", \"no-network\", \"allowlist\"", field, s)
}

// Phase names a phase of a run whose network is governed.
type Phase string

// The phases.
const (
	PhaseBuild Phase = "build"
	// PhaseSetup is a run's set-up before its agent starts: its compose
	// services starting and their health checks (docs/trace-events.md).
	PhaseSetup    Phase = "setup"
	PhaseAgent    Phase = "agent"
	PhaseVerifier Phase = "verifier"
)

// Policy is the network of one phase: its mode and, for Allowlist, what
// it allows. AllowAll (public through the proxy) is set when a phase is
// Public but must still be mediated (a model agent whose key the proxy
// injects).
type Policy struct {
	Mode     Mode      `json:"mode"`
	Allow    AllowList `json:"-"`
	AllowAll bool      `json:"allow_all,omitempty"`
	// Hosts is Allow as host:port strings, for the run record.
	Hosts []string `json:"allowed_hosts"`
	// Services, when not nil, are the run's own services (compose
	// sidecars, reached by name) the phase may connect to: a policy π
	// whose task's spec declares the network axis governs them by its
	// network entries. Nil: every service of the run (the default).
	Services *AllowList `json:"-"`
	// ServiceHosts is Services as host:port strings, for the run record.
	ServiceHosts []string `json:"services_allowed,omitempty"`
}

// AllowsService reports whether the phase may connect to the run's own
// service name on port.
func (p Policy) AllowsService(name string, port int) bool {
	return p.Services == nil || p.Services.Allows(name, port)
}

// Mediated reports whether the phase runs in the run's private network
// namespace behind the proxy (every mode but unmediated Public).
func (p Policy) Mediated() bool { return p.Mode != Public || p.AllowAll }

// Allows reports whether the phase may connect to host:port.
func (p Policy) Allows(host string, port int) bool {
	if p.AllowAll || (p.Mode == Public) {
		return true
	}
	return p.Mode == Allowlist && p.Allow.Allows(host, port)
}

// PhaseInput is what decides a phase's Policy (see ResolvePhase).
type PhaseInput struct {
	// Legacy is [environment] allow_internet (Harbor's default true).
	Legacy bool
	// Environment and Phase are [environment] network_mode and the
	// phase's own network_mode ([agent] or [verifier]); "" when unset.
	Environment, Phase Mode
	// AllowedHosts is the phase's allowed_hosts, parsed.
	AllowedHosts AllowList
	// Extra are run-time entries (--agent-allow-host) for this phase.
	Extra AllowList
	// Model is the model endpoint the phase must reach (a model agent's,
	// for the agent phase), nil for none.
	Model *ModelEndpoint
	// Governed is set when a policy π governs the phase's network (the
	// agent phase of a run under a policy whose task's spec declares the
	// network axis); Network is then π's network entries.
	Governed bool
	Network  []policy.HostPattern
}

// ResolvePhase decides a phase's policy. Precedence: the phase's
// network_mode, else [environment] network_mode, else allow_internet
// (true: public, false: no-network). Run-time entries make the phase an
// allowlist of the task's allowed_hosts (when it was one) plus them, even
// when the task said public or no-network: the flag asks for exactly
// that. A model endpoint is added to an allowlist or no-network phase
// (making it an allowlist); a public phase with a model endpoint stays
// public but is mediated (AllowAll), so that the proxy holds the key.
// A governed phase (Governed) is an allowlist of what both the task's
// network (as above: everything when public, nothing when no-network)
// and π's network entries allow, and reaches only the run's services π's
// entries name (Services); the model endpoint is added after, as π does
// not name it (docs/scoring.md, "The network axis").
// It is pure.
func ResolvePhase(in PhaseInput) (Policy, error) {
	mode := in.Phase
	if mode == "" {
		mode = in.Environment
	}
	if mode == "" {
		mode = NoNetwork
		if in.Legacy {
			mode = Public
		}
	}
	var allow AllowList
	if mode == Allowlist {
		allow = in.AllowedHosts
	}
	if len(in.Extra.entries) > 0 {
		mode, allow = Allowlist, allow.With(in.Extra.entries...)
	}
	p := Policy{Mode: mode}
	if in.Governed {
		env := allow.entries
		if mode == Public {
			env = []policy.HostPattern{policy.MustHostPattern("*:*")}
		}
		allow = AllowList{}.With(policy.IntersectHosts(env, in.Network)...)
		services := AllowList{}.With(in.Network...)
		mode, p.Services, p.ServiceHosts = Allowlist, &services, services.Strings()
	}
	if in.Model != nil {
		e, err := in.Model.Entry()
		if err != nil {
			return Policy{}, err
		}
		if mode == Public {
			p.AllowAll = true
		} else {
			mode, allow = Allowlist, allow.With(e)
		}
	}
	p.Mode, p.Allow, p.Hosts = mode, allow, allow.Strings()
	return p, nil
}

// ModelEndpoint is a model API the proxy lets a phase reach and whose
// key it injects: requests over plain HTTP to the endpoint's host and
// port get `Authorization: Bearer <Key>`, or `x-api-key: <Key>` for
// Anthropic's API (SetKey; replacing any the client sent, typically
// Placeholder), so the real key never enters the container.
// Over HTTPS the proxy only tunnels (it does not intercept TLS): the
// client must then hold a real key itself (see docs/security.md).
type ModelEndpoint struct {
	// URL is the endpoint's base URL (e.g. http://127.0.0.1:8080/v1).
	URL string
	// Key is the real API key; it is never logged or recorded.
	Key string
}

// Placeholder is the API key a mediated agent is given in place of the
// real one.
const Placeholder = "authbench-placeholder-key"

// Entry returns the endpoint's host:port as an allow-list entry.
func (m ModelEndpoint) Entry() (policy.HostPattern, error) {
	host, port, _, err := m.Target()
	if err != nil {
		return policy.HostPattern{}, err
	}
	return policy.ParseHostPattern(net.JoinHostPort(host, strconv.Itoa(port)))
}

// Target parses URL: the normalised host, the port (the scheme's default
// when absent) and whether it is plain HTTP.
func (m ModelEndpoint) Target() (host string, port int, plain bool, err error) {
	u, err := url.Parse(m.URL)
	if err != nil {
		return "", 0, false, fmt.Errorf("model endpoint %q: %w", m.URL, err)
	}
	switch u.Scheme {
	case "http":
		port, plain = 80, true
	case "https":
		port = 443
	default:
		return "", 0, false, fmt.Errorf("model endpoint %q: scheme must be http or https", m.URL)
	}
	if p := u.Port(); p != "" {
		if port, err = strconv.Atoi(p); err != nil || port < 1 || port > 65535 {
			return "", 0, false, fmt.Errorf("model endpoint %q: bad port", m.URL)
		}
	}
	if host, err = policy.NormaliseHost(u.Hostname()); err != nil {
		return "", 0, false, fmt.Errorf("model endpoint %q: %w", m.URL, err)
	}
	return host, port, plain, nil
}
