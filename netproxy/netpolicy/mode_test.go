package netpolicy

import (
	"slices"
	"testing"

	"github.com/authbench/authbench/policy"
)

// TestResolvePhaseGoverned: a policy's network entries narrow the task's
// network (public: to them; allowlist: to what both allow; no-network:
// to nothing outside) and name the services the agent may reach; the
// model endpoint stays reachable.
func TestResolvePhaseGoverned(t *testing.T) {
	pi := []policy.HostPattern{policy.MustHostPattern("intel-mirror:8080"), policy.MustHostPattern("pypi.org:443"), policy.MustHostPattern("*.example.com:443")}
	allowed, err := ParseAllowList("allowed_hosts", []string{"pypi.org:443", "files.pythonhosted.org:443", "api.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	model := &ModelEndpoint{URL: "http://127.0.0.1:4000/v1"}
	tests := []struct {
		name     string
		in       PhaseInput
		hosts    []string
		services []string
	}{
		{"public", PhaseInput{Legacy: true, Governed: true, Network: pi},
			[]string{"intel-mirror:8080", "pypi.org:443", "*.example.com:443"}, []string{"intel-mirror:8080", "pypi.org:443", "*.example.com:443"}},
		{"allowlist", PhaseInput{Phase: Allowlist, AllowedHosts: allowed, Governed: true, Network: pi},
			[]string{"pypi.org:443", "api.example.com:443"}, []string{"intel-mirror:8080", "pypi.org:443", "*.example.com:443"}},
		{"no-network", PhaseInput{Governed: true, Network: pi},
			[]string{}, []string{"intel-mirror:8080", "pypi.org:443", "*.example.com:443"}},
		{"no-network with a model", PhaseInput{Governed: true, Network: pi, Model: model},
			[]string{"127.0.0.1:4000"}, []string{"intel-mirror:8080", "pypi.org:443", "*.example.com:443"}},
		{"a policy without hosts", PhaseInput{Legacy: true, Governed: true, Network: []policy.HostPattern{}},
			[]string{}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ResolvePhase(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if p.Mode != Allowlist || !p.Mediated() {
				t.Errorf("mode %s", p.Mode)
			}
			if got := p.Allow.Strings(); !slices.Equal(got, tt.hosts) {
				t.Errorf("allow %v, want %v", got, tt.hosts)
			}
			if !slices.Equal(p.ServiceHosts, tt.services) {
				t.Errorf("services %v, want %v", p.ServiceHosts, tt.services)
			}
		})
	}
	p, _ := ResolvePhase(PhaseInput{Governed: true, Network: pi})
	if !p.AllowsService("intel-mirror", 8080) || p.AllowsService("intel-mirror-cdn", 8081) || p.AllowsService("intel-mirror", 8081) {
		t.Error("services allowed beyond the policy's entries")
	}
	if p, _ := ResolvePhase(PhaseInput{}); !p.AllowsService("intel-mirror-cdn", 8081) {
		t.Error("an ungoverned phase refuses a service of the run")
	}
}
