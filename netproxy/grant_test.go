package netproxy

import (
	"strconv"
	"strings"
	"testing"

	"github.com/authbench/authbench/netproxy/netpolicy"
	"github.com/authbench/authbench/policy"
)

// TestAllowHostGrantsTheNextConnection: a no-network agent phase
// refuses a host; after AllowHost (a granted network request) the next
// connection there goes through, another port stays refused, and the
// grant ends with the phase.
func TestAllowHostGrantsTheNextConnection(t *testing.T) {
	s1, s2 := newCountingServer(t, "one"), newCountingServer(t, "two")
	f := startFixture(t, Config{Policy: netpolicy.Policy{Mode: netpolicy.NoNetwork}})
	h := policy.MustHostPattern("127.0.0.1:" + strconv.Itoa(s1.port()))
	if out, _, err := f.curl(t, "--fail", s1.URL+"/x"); err == nil {
		t.Fatalf("before the grant: %q", out)
	}
	if err := f.p.AllowHost(netpolicy.PhaseVerifier, h); err == nil || !strings.Contains(err.Error(), "agent phase") {
		t.Errorf("a grant for another phase: %v", err)
	}
	if err := f.p.AllowHost(netpolicy.PhaseAgent, policy.MustHostPattern("*:443")); err == nil {
		t.Error("a pattern was granted")
	}
	if err := f.p.AllowHost(netpolicy.PhaseAgent, h); err != nil {
		t.Fatal(err)
	}
	if out, _, err := f.curl(t, "--fail", s1.URL+"/x"); err != nil || out != "one" {
		t.Errorf("after the grant: %q, %v", out, err)
	}
	if out, _, err := f.curl(t, "--fail", s2.URL+"/x"); err == nil {
		t.Errorf("another port after the grant: %q", out)
	}
	if _, pol := f.p.current(); pol.Mode != netpolicy.Allowlist || len(pol.Hosts) != 1 || pol.Hosts[0] != h.String() {
		t.Errorf("the phase's policy after the grant: %+v", pol)
	}
	f.p.SetPhase(netpolicy.PhaseVerifier, netpolicy.Policy{Mode: netpolicy.NoNetwork})
	if out, _, err := f.curl(t, "--fail", s1.URL+"/x"); err == nil {
		t.Errorf("the grant outlived its phase: %q", out)
	}
	if s1.accepted.Load() != 1 || s2.accepted.Load() != 0 {
		t.Errorf("accepted %d and %d, want 1 and 0", s1.accepted.Load(), s2.accepted.Load())
	}
}
