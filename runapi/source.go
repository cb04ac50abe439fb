package runapi

import "github.com/authbench/authbench/policy"

// Policy sources of a run (the rows of the benchmark).
const (
	// SourceUnconstrained runs the agent without Landlock.
	SourceUnconstrained = "unconstrained"
	// SourceSpec runs it under the spec's required ∪ implicit permissions.
	SourceSpec = "spec"
	// SourcePolicy runs it under a given policy π (∪ implicit).
	SourcePolicy = "policy"
)

// Agents of a task run besides cmd:COMMAND, openai:MODEL and
// installed:NAME (TaskRequest.Agent; agentname.Oracle and
// agentname.Shortcut are their kinds).
const (
	AgentOracle   = "oracle"   // the task's solution/solve.sh
	AgentShortcut = "shortcut" // the task's solution/attack_smoke.sh
)

// SpecPolicy is the policy of the spec row: required_permissions (the
// implicit ones are added to every plan as its baseline).
func SpecPolicy(spec *policy.Spec) *policy.Policy {
	var network []policy.HostPattern
	if spec.Network.Declared {
		network = append([]policy.HostPattern{}, spec.Network.Required...)
	}
	return &policy.Policy{Permissions: spec.Required, Network: network, Source: spec.Source + " (required_permissions)"}
}
