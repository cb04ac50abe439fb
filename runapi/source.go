package runapi

import (
	"strings"

	"github.com/authbench/authbench/policy"
)

// Policy sources of a run on the wire (TaskRequest.PolicySource): what
// the daemon confines the agent with.
const (
	// SourceUnconstrained runs the agent without Landlock.
	SourceUnconstrained = "unconstrained"
	// SourceSpec runs it under the spec's required ∪ implicit permissions.
	SourceSpec = "spec"
	// SourcePolicy runs it under a given policy π (∪ implicit).
	SourcePolicy = "policy"
)

// Bench policy sources besides unconstrained and spec: the rest of the
// one vocabulary the bench parses, the daemon maps to its wire source and
// the report orders its rows by (SourceKinds).
const (
	// SourceTrace is the spec's required set recorded from traced
	// oracle runs.
	SourceTrace = "trace"
	// SourceAllowAll is /** on every axis.
	SourceAllowAll = "allow-all"
	// SourceDirPrefix names policy files: dir:PATH runs PATH/<task>.json.
	SourceDirPrefix = "dir:"
	// SourceGenPrefix names a generator's policies: gen:GENERATOR (a
	// generator of package generate: heuristic, openai:MODEL,
	// st:MODEL, cmd:COMMAND, ...).
	SourceGenPrefix = "gen:"
)

// SourceKind is one kind of policy source of the vocabulary.
type SourceKind struct {
	// Name is the source's name, or its prefix for a kind that takes an
	// argument (dir:, gen:).
	Name string
	// Prefix: the kind takes an argument after Name.
	Prefix bool
	// Wire is the wire source (TaskRequest.PolicySource) its runs are
	// sent with.
	Wire string
	// Bench: a bench source (--sources); Request: a wire source the
	// daemon accepts.
	Bench, Request bool
}

// SourceKinds is the vocabulary of policy sources, in report row order:
// one list for the bench's parser, the daemon's validation and the
// report's order.
var SourceKinds = []SourceKind{
	{Name: SourceUnconstrained, Wire: SourceUnconstrained, Bench: true, Request: true},
	{Name: SourceSpec, Wire: SourceSpec, Bench: true, Request: true},
	{Name: SourceTrace, Wire: SourcePolicy, Bench: true},
	{Name: SourceAllowAll, Wire: SourcePolicy, Bench: true},
	{Name: SourceDirPrefix, Prefix: true, Wire: SourcePolicy, Bench: true},
	{Name: SourceGenPrefix, Prefix: true, Wire: SourcePolicy, Bench: true},
	{Name: SourcePolicy, Wire: SourcePolicy, Request: true},
}

// KindOfSource returns the kind of the source name and its argument
// (the generator of gen:GENERATOR, the path of dir:PATH; "" for the
// others); false for a name of no kind.
func KindOfSource(name string) (SourceKind, string, bool) {
	for _, k := range SourceKinds {
		if k.Prefix {
			if arg, ok := strings.CutPrefix(name, k.Name); ok {
				return k, arg, true
			}
		} else if name == k.Name {
			return k, "", true
		}
	}
	return SourceKind{}, "", false
}

// SourceRank is the source's place in the report's row order: its kind's
// index in SourceKinds, len(SourceKinds) for a name of no kind.
func SourceRank(name string) int {
	k, _, ok := KindOfSource(name)
	if !ok {
		return len(SourceKinds)
	}
	for i := range SourceKinds {
		if SourceKinds[i].Name == k.Name {
			return i
		}
	}
	return len(SourceKinds)
}

// SourceNames lists the written forms of the kinds that bench (or, with
// request, a request) accepts, for messages: "unconstrained, spec, ...,
// gen:GENERATOR, dir:PATH".
func SourceNames(request bool) string {
	var names []string
	for _, k := range SourceKinds {
		if request && !k.Request || !request && !k.Bench {
			continue
		}
		switch k.Name {
		case SourceGenPrefix:
			names = append(names, k.Name+"GENERATOR")
		case SourceDirPrefix:
			names = append(names, k.Name+"PATH")
		default:
			names = append(names, k.Name)
		}
	}
	return strings.Join(names, ", ")
}

// Agents of a task run besides cmd:COMMAND and openai:MODEL
// (TaskRequest.Agent).
const (
	AgentOracle   = "oracle"   // the task's solution/solve.sh
	AgentShortcut = "shortcut" // the task's solution/attack_smoke.sh
	// AgentNone is no agent: a bench pipeline's generation attempt, whose
	// policy is scored and not run (never sent to the daemon).
	AgentNone = "none"
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
