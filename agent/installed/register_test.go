package installed

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/authbench/authbench/agent/agentname"
)

// TestEveryHarnessRegistersItself: each harness file's value is in the
// table under its own name, complete (configuration, command,
// transcript reader and converter), and found by its agent name.
func TestEveryHarnessRegistersItself(t *testing.T) {
	want := []string{"opencode", "openclaw", "pi", "qwen-code"}
	for _, n := range want {
		if !slices.Contains(Names(), n) {
			t.Errorf("harness %s is not registered (have %v)", n, Names())
		}
	}
	for name, h := range Harnesses {
		if h.Name != name || h.Package == "" || h.Version == "" || h.Entry == "" || h.Config == nil || h.Args == nil || h.Events == nil || h.Convert == nil {
			t.Errorf("harness %s is incomplete: %+v", name, h)
		}
		n, err := agentname.Parse("installed:" + name + ":m")
		if err != nil {
			t.Fatal(err)
		}
		if f, err := Find(n); err != nil || f.Name != name || f.Version != h.Version {
			t.Errorf("Find(%s) = %s %s, %v", n, f.Name, f.Version, err)
		}
	}
}

// TestRegisterRefuses: a second harness of one name and a name that
// installed:NAME cannot spell are refused when the package loads.
func TestRegisterRefuses(t *testing.T) {
	for _, name := range []string{"pi", "", "Pi", "a:b", "a@1.0.0", "../x"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("register(%q) did not refuse", name)
				}
			}()
			register(Harness{Name: name})
		}()
		if name != "pi" {
			if _, ok := Harnesses[name]; ok {
				t.Errorf("register(%q) added it", name)
			}
		}
	}
	if h := Harnesses["pi"]; h.Package == "" {
		t.Errorf("the refused duplicate replaced pi: %+v", h)
	}
}

// TestFindRefuses: a name of another kind, and an unknown harness (the
// error lists the known ones).
func TestFindRefuses(t *testing.T) {
	for in, want := range map[string]string{
		"openai:gpt-5":       "not an installed harness",
		"installed:nosuch":   "known: " + strings.Join(Names(), ", "),
		"installed:claude-x": "no installed harness \"claude-x\"",
	} {
		n, _ := agentname.Parse(in)
		if _, err := Find(n); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Find(%s): %v, want %q", in, err, want)
		}
	}
}

// TestNoHarnessValueLeftUnregistered: every Harness value a file of the
// package declares (var x = Harness{Name: "…", …}) is in the table, so a
// harness file that forgets its register call fails here rather than
// being unknown to --agent.
func TestNoHarnessValueLeftUnregistered(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			if id, isIdent := lit.Type.(*ast.Ident); !isIdent || id.Name != "Harness" {
				return true
			}
			for _, e := range lit.Elts {
				kv, ok := e.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				if k, isIdent := kv.Key.(*ast.Ident); !isIdent || k.Name != "Name" {
					continue
				}
				if v, isLit := kv.Value.(*ast.BasicLit); isLit {
					name, _ := strconv.Unquote(v.Value)
					found++
					if _, ok := Harnesses[name]; !ok {
						t.Errorf("%s declares harness %q but does not register it (func init() { register(…) })", f, name)
					}
				}
			}
			return true
		})
	}
	if found < len(Harnesses) {
		t.Errorf("found %d harness values in the package's files, %d registered", found, len(Harnesses))
	}
}
