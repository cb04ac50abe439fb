package netproxy

import (
	"fmt"

	"github.com/authbench/authbench/netproxy/netpolicy"
	"github.com/authbench/authbench/policy"
)

// AllowHost adds endpoint h to what phase ph allows, while the proxy is
// in that phase (a run-time permission grant: docs/security.md,
// "Permission requests"): a no-network phase becomes an allow-list of
// its grants, an allow-list gains h, a public phase allows it already.
// It holds until the next SetPhase (the verifiers get their own
// policy). Connections are decided when they are opened, so h applies
// to the next one. A name the proxy did not map at its start has no
// stand-in address: it is reached through the proxy's variables
// (CONNECT or absolute-URI HTTP), not by a transparent connection.
func (p *Proxy) AllowHost(ph netpolicy.Phase, h policy.HostPattern) error {
	if !h.IsExact() {
		return fmt.Errorf("allow %s: a grant is one endpoint, not a pattern", h)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.phase != ph {
		return fmt.Errorf("allow %s: the run is in its %s phase, not %s", h, p.phase, ph)
	}
	if p.policy.Mode == netpolicy.NoNetwork {
		p.policy.Mode = netpolicy.Allowlist
	}
	if p.policy.Mode == netpolicy.Allowlist {
		p.policy.Allow = p.policy.Allow.With(h)
		p.policy.Hosts = p.policy.Allow.Strings()
	}
	return nil
}
