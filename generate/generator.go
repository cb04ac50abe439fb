package generate

import (
	"fmt"
	"strings"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
)

// Kinds of generators.
const (
	KindCmd    = "cmd"
	KindOpenAI = "openai"
	// KindST is the sufficiency-tightness decomposition: an openai
	// generator's exploration answering a sufficient policy, then a
	// second model call tightening it (st.go).
	KindST        = "st"
	KindHeuristic = "heuristic"
	KindSpec      = "spec"
	KindAllowAll  = "allow-all"
)

// Generator is a parsed generator name.
type Generator struct {
	// Name is the name as given ("heuristic", `cmd:./gen`, "openai:gpt-4o").
	Name string
	// Kind is one of the Kind constants.
	Kind string
	// Command is a cmd: generator's command line; Model an openai: or
	// st: one's model.
	Command, Model string
}

// ParseGenerator parses `cmd:COMMAND`, `openai:MODEL`, `st:MODEL`,
// `heuristic`, `spec` or `allow-all`.
func ParseGenerator(s string) (Generator, error) {
	g := Generator{Name: s}
	switch {
	case s == KindHeuristic || s == KindSpec || s == KindAllowAll:
		g.Kind = s
	case strings.HasPrefix(s, KindCmd+":"):
		g.Kind, g.Command = KindCmd, strings.TrimPrefix(s, KindCmd+":")
		if strings.TrimSpace(g.Command) == "" {
			return g, fmt.Errorf("generator %q: cmd: needs a command", s)
		}
	case strings.HasPrefix(s, KindOpenAI+":"), strings.HasPrefix(s, KindST+":"):
		kind, model, _ := strings.Cut(s, ":")
		g.Kind, g.Model = kind, model
		if strings.TrimSpace(g.Model) == "" {
			return g, fmt.Errorf("generator %q: %s: needs a model name", s, kind)
		}
	default:
		return g, fmt.Errorf("unknown generator %q (want cmd:\"COMMAND\", openai:MODEL, st:MODEL, heuristic, spec or allow-all)", s)
	}
	return g, nil
}

// Sandboxed reports whether the generator runs inside the task's
// environment (cmd, openai, st) rather than as a static baseline.
func (g Generator) Sandboxed() bool { return g.Kind == KindCmd || g.UsesModel() }

// UsesModel reports whether the generator calls a model (openai, st):
// it needs a model configuration, its Model set from the name.
func (g Generator) UsesModel() bool { return g.Kind == KindOpenAI || g.Kind == KindST }

// AllowAllDocument is the allow-all policy: `/**` on every axis.
const AllowAllDocument = `{"read": ["/**"], "write": ["/**"], "execute": ["/**"]}`

// AllowAll returns the allow-all policy.
func AllowAll() *policy.Policy {
	pol, err := policy.ParsePolicy([]byte(AllowAllDocument), KindAllowAll)
	if err != nil {
		panic(err) // a constant document
	}
	return pol
}

// SpecPolicy is the spec baseline: the spec's required_permissions.
func SpecPolicy(spec *policy.Spec) *policy.Policy {
	pol := runapi.SpecPolicy(spec)
	pol.Source = KindSpec
	return pol
}
