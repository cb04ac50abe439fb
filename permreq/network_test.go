package permreq

import (
	"context"
	"strings"
	"testing"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
)

// TestNetworkRequests: a network request is decided against the spec's
// network axis: the spec decider grants a required endpoint only, a
// sensitive one is refused by every decider, a task without the axis
// takes none.
func TestNetworkRequests(t *testing.T) {
	root, spec := fixture(t)
	spec.Network = policy.NetworkSpec{Declared: true,
		Required:  []policy.HostPattern{policy.MustHostPattern("pypi.org:443")},
		Implicit:  []policy.HostPattern{policy.MustHostPattern("*.model.test:443")},
		Sensitive: []policy.HostPattern{policy.MustHostPattern("*.exfil.test:*")}}
	for _, c := range []struct {
		decider, endpoint, want string
		required, sensitive     bool
	}{
		{"spec", "pypi.org:443", runapi.RequestGranted, true, false},
		{"spec", "api.model.test:443", runapi.RequestGranted, true, false},
		{"spec", "pypi.org:80", runapi.RequestRefused, false, false},
		{"spec", "drop.exfil.test:443", runapi.RequestRefused, false, true},
		{"allow", "example.com:443", runapi.RequestGranted, false, false},
		{"allow", "drop.exfil.test:443", runapi.RequestRefused, false, true},
		{"deny", "pypi.org:443", runapi.RequestRefused, true, false},
		{"spec", "*.pypi.org:443", runapi.RequestInvalid, false, false},
	} {
		d, err := NewDecider(c.decider, spec, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, rec, g := NewDesk(d, spec, root, policy.PlanOptions{}, Limits{}).Ask(context.Background(), "network", c.endpoint, "to install")
		if rec.Decision != c.want || rec.Required != c.required || rec.Sensitive != c.sensitive || (g != nil) != (c.want == runapi.RequestGranted) {
			t.Errorf("%s network %s: %+v (grant %v)", c.decider, c.endpoint, rec, g != nil)
		}
		if g != nil && (len(g.Hosts) != 1 || g.Hosts[0].String() != c.endpoint || len(g.Rules) != 0 || rec.Rules[0] != "network "+c.endpoint) {
			t.Errorf("%s: grant %+v, rules %v", c.endpoint, g, rec.Rules)
		}
	}
	spec.Network = policy.NetworkSpec{}
	d, _ := NewDecider("allow", spec, nil)
	_, rec, g := NewDesk(d, spec, root, policy.PlanOptions{}, Limits{}).Ask(context.Background(), "network", "pypi.org:443", "to install")
	if g != nil || rec.Decision != runapi.RequestInvalid || !strings.Contains(rec.Why, "no network axis") {
		t.Errorf("a task without a network axis: %+v", rec)
	}
}
