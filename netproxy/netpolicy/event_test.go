package netpolicy

import "testing"

// TestEventAgents: which events are the agent's (pure).
func TestEventAgents(t *testing.T) {
	for _, tt := range []struct {
		phase  Phase
		origin string
		want   bool
	}{
		{PhaseAgent, OriginAgent, true},
		{PhaseAgent, OriginUnknown, true},
		{PhaseAgent, "", true},
		{PhaseAgent, ServiceOrigin("db"), false},
		{PhaseAgent, OriginVerifier, false},
		{PhaseSetup, OriginUnknown, false},
		{PhaseSetup, OriginAgent, false},
		{PhaseVerifier, OriginAgent, false},
	} {
		if got := (Event{Phase: tt.phase, Origin: tt.origin}).Agents(); got != tt.want {
			t.Errorf("%s/%q: %v, want %v", tt.phase, tt.origin, got, tt.want)
		}
	}
	if name, ok := IsService(ServiceOrigin("db")); !ok || name != "db" {
		t.Errorf("IsService: %q %v", name, ok)
	}
	for _, o := range []string{"service:", "agent", "", "unknown"} {
		if _, ok := IsService(o); ok {
			t.Errorf("IsService(%q) true", o)
		}
	}
}
