// Package genname is the vocabulary of permission generators, with no
// generator in it: the kinds (`cmd:COMMAND`, `openai:MODEL`, `st:MODEL`, `heuristic`,
// `spec`, `allow-all`), a name parsed into its parts, and the allow-all
// policy's document. Package generate runs generators; the bench, the
// daemon and the CLI check names with this one without linking them.
package genname

import (
	"fmt"
	"strings"
)

// Kinds of generators.
const (
	KindCmd    = "cmd"
	KindOpenAI = "openai"
	// KindST is the sufficiency-tightness decomposition: an openai
	// generator's exploration answering a sufficient policy, then a
	// second model call tightening it (package generate, st.go).
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

// Parse parses `cmd:COMMAND`, `openai:MODEL`, `st:MODEL`, `heuristic`,
// `spec` or `allow-all`.
func Parse(s string) (Generator, error) {
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
