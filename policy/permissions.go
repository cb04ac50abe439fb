package policy

import (
	"encoding/json"
)

// Permissions holds one pattern list per axis: the shape of a policy π
// and of each field of a spec S.
type Permissions [len(Axes)][]Pattern

// Get returns the patterns of axis a.
func (p *Permissions) Get(a Axis) []Pattern { return p[a] }

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
// execute.
type Policy struct {
	Permissions
	// Source names where the policy came from (a file name).
	Source string `json:"-"`
}

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
	// Source names where the spec came from (a file name).
	Source string `json:"-"`
}
