package genname

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in, kind, command, model, err string
	}{
		{"heuristic", KindHeuristic, "", "", ""},
		{"spec", KindSpec, "", "", ""},
		{"allow-all", KindAllowAll, "", "", ""},
		{`cmd:python3 gen.py --x "a b"`, KindCmd, `python3 gen.py --x "a b"`, "", ""},
		{"openai:gpt-4o-mini", KindOpenAI, "", "gpt-4o-mini", ""},
		{"st:gpt-5", KindST, "", "gpt-5", ""},
		{"st: ", "", "", "", "st: needs a model name"},
		{"cmd:  ", "", "", "", "needs a command"},
		{"openai:", "", "", "", "needs a model name"},
		{"claude", "", "", "", "unknown generator"},
		{"", "", "", "", "unknown generator"},
	} {
		g, err := Parse(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || g.Kind != c.kind || g.Command != c.command || g.Model != c.model || g.Name != c.in {
			t.Errorf("%q: %+v %v", c.in, g, err)
		}
	}
}
