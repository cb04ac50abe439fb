package policy

import (
	"encoding/json"
)

// Permissions holds one pattern list per axis: the shape of a policy π
// and of each field of a spec S.
type Permissions [len(Axes)][]Pattern

// Get returns the patterns of axis a; nil for an axis that is no file
// axis (Network: a policy's hosts are Policy.Network).
func (p *Permissions) Get(a Axis) []Pattern {
	if a < 0 || int(a) >= len(p) {
		return nil
	}
	return p[a]
}

// Len returns the number of patterns over all axes.
func (p *Permissions) Len() int {
	n := 0
	for _, a := range Axes {
		n += len(p[a])
	}
	return n
}

// MarshalJSON writes {"read": [...], "write": [...], "execute": [...]}
// with normalised patterns.
func (p Permissions) MarshalJSON() ([]byte, error) {
	out := make(map[string][]string, len(Axes))
	for _, a := range Axes {
		list := make([]string, len(p[a]))
		for i, pat := range p[a] {
			list[i] = pat.String()
		}
		out[a.String()] = list
	}
	return json.Marshal(out)
}

// Policy is a permission policy π: what an agent may read, write and
// execute, and which hosts it may connect to.
type Policy struct {
	Permissions
	// Network is what the agent may connect to ("host:port" patterns);
	// nil when the policy has no network key, which grants no host.
	Network []HostPattern
	// Source names where the policy came from (a file name).
	Source string `json:"-"`
}

// MarshalJSON writes the policy's permissions as Permissions does, with
// "network" beside them when the policy has that key.
func (p Policy) MarshalJSON() ([]byte, error) {
	if p.Network == nil {
		return p.Permissions.MarshalJSON()
	}
	out := make(map[string]any, len(Axes)+1)
	for _, a := range Axes {
		list := make([]string, len(p.Permissions[a]))
		for i, pat := range p.Permissions[a] {
			list[i] = pat.String()
		}
		out[a.String()] = list
	}
	out[fieldNetwork] = HostStrings(p.Network)
	return json.Marshal(out)
}

// HostStrings returns the normalised entries of list.
func HostStrings(list []HostPattern) []string {
	out := make([]string, len(list))
	for i, p := range list {
		out[i] = p.String()
	}
	return out
}

// NetworkSpec is the network axis of a spec: the "network" lists of its
// required, implicit and sensitive permissions (nil where absent).
type NetworkSpec struct {
	// Required is what the oracle connected to.
	Required []HostPattern
	// Implicit is what every run may connect to (the model endpoint);
	// it counts neither for nor against a policy.
	Implicit []HostPattern
	// Sensitive is what must not be reached (an exfiltration sink).
	Sensitive []HostPattern
	// Declared is true when the spec has a "network" key at all (maybe
	// an empty list). A policy may carry "network" only against a spec
	// that declares the axis: the published format has no such key, and
	// the published verifier rejects a policy that has it.
	Declared bool
}

// SensitiveTarget returns the sensitive entry that matches target (a
// connection's "host:port", IPv6 in brackets), false when none does or
// target is not a valid endpoint.
func (n NetworkSpec) SensitiveTarget(target string) (HostPattern, bool) {
	host, port, err := ParseHostPort(target)
	if err != nil {
		return HostPattern{}, false
	}
	for _, e := range n.Sensitive {
		if e.Match(host, port) {
			return e, true
		}
	}
	return HostPattern{}, false
}

// Scored reports whether the spec scores the network axis: it has a
// required or a sensitive network entry.
func (n NetworkSpec) Scored() bool { return len(n.Required)+len(n.Sensitive) > 0 }

// Spec is a task's permission spec S.
type Spec struct {
	// Required is what the oracle needed.
	Required Permissions `json:"required_permissions"`
	// ScoredRoots bounds the candidate set of static scoring; exact paths.
	ScoredRoots Permissions `json:"scored_roots"`
	// Implicit is what the runtime always grants; it counts neither for
	// nor against a policy.
	Implicit Permissions `json:"implicit_permissions"`
	// Sensitive, when present, is what must not be opened.
	Sensitive *Permissions `json:"sensitive_permissions,omitempty"`
	// Network is the network axis, read from the "network" key of the
	// required, implicit and sensitive permissions (never of
	// scored_roots: the axis's universe is the spec's own entries).
	Network NetworkSpec `json:"-"`
	// Source names where the spec came from (a file name).
	Source string `json:"-"`
}
