package layers

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// pkg is what the test reads of `go list -json`.
type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// listModule returns every package of the module, keyed by its path
// relative to the module.
func listModule(t *testing.T) map[string]pkg {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("the go tool is needed to list imports: %v", err)
	}
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports,Deps", Module+"/...").Output()
	if err != nil {
		t.Fatalf("go list %s/...: %v", Module, err)
	}
	pkgs := map[string]pkg{}
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs[rel(p.ImportPath)] = p
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages of %s", len(pkgs), Module)
	}
	return pkgs
}

// rel is path relative to the module; a path outside it is returned as it is.
func rel(path string) string {
	if path == Module {
		return "."
	}
	r, _ := strings.CutPrefix(path, Module+"/")
	return r
}

// TestEveryPackagePlaced: each package of the module is in exactly one
// layer, and each package of the map exists.
func TestEveryPackagePlaced(t *testing.T) {
	pkgs := listModule(t)
	seen := map[string]string{}
	for _, l := range Layers {
		for _, p := range l.Packages {
			if other, ok := seen[p]; ok {
				t.Errorf("%s is in layers %s and %s", p, other, l.Name)
			}
			seen[p] = l.Name
			if _, ok := pkgs[p]; !ok {
				t.Errorf("layer %s lists %s, which is no package of the module", l.Name, p)
			}
		}
	}
	for p := range pkgs {
		if Index(p) < 0 {
			t.Errorf("package %s is in no layer: place it in layers.Layers", p)
		}
	}
}

// TestImportsFollowLayers: no package imports one of a higher layer (or
// one out of its layer's reach). Tests may import anything.
func TestImportsFollowLayers(t *testing.T) {
	for from, p := range listModule(t) {
		for _, imp := range p.Imports {
			if to := rel(imp); to != imp {
				if err := Check(from, to); err != nil {
					t.Errorf("import against the layer map: %v", err)
				}
			}
		}
	}
}

// TestCheck: the rule itself, so that the test above can fail.
func TestCheck(t *testing.T) {
	for _, c := range []struct {
		from, to string
		ok       bool
	}{
		{"sandbox", "policy", true},
		{"policy", "sandbox", false},
		{"audit", "tracer/trace", true},
		{"tracer/trace", "audit", false},
		{"runapi", "trial", true}, // the same layer
		{"daemon", "taskrun", true},
		{"taskrun", "daemon", false},
		{"cli", "daemon/taskwork", true},
		{"bench", "nowhere", false},
		{"bench", "tasks", true},
		{"bench", "sandbox", false}, // out of the clients' reach
		{"oracle", "env", false},
		{"report", "daemon", false},
		{"oracle", "report", true},
	} {
		if err := Check(c.from, c.to); (err == nil) != c.ok {
			t.Errorf("Check(%s, %s) = %v, want ok %v", c.from, c.to, err, c.ok)
		}
	}
}

// TestArchitectureDocShowsTheMap: docs/architecture.md's layer table is
// the map's.
func TestArchitectureDocShowsTheMap(t *testing.T) {
	doc, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := Markdown(); !strings.Contains(string(doc), want) {
		t.Errorf("docs/architecture.md lacks the layer table of layers.Layers; want:\n%s", want)
	}
}

// TestClientsLinkNoServer: the clients link none of ServerLibraries,
// directly or not; each entry is linked by some package of the module,
// so that the check can fail.
func TestClientsLinkNoServer(t *testing.T) {
	pkgs := listModule(t)
	linked := map[string]bool{}
	for _, p := range pkgs {
		for _, d := range p.Deps {
			for _, lib := range ServerLibraries {
				if strings.HasPrefix(d, lib.Prefix) {
					linked[lib.Prefix] = true
				}
			}
		}
	}
	for _, lib := range ServerLibraries {
		if !linked[lib.Prefix] {
			t.Errorf("no package of the module links %s: the entry proves nothing", lib.Prefix)
		}
	}
	for _, c := range Layers[Index("bench")].Packages {
		for _, d := range pkgs[c].Deps {
			for _, lib := range ServerLibraries {
				if strings.HasPrefix(d, lib.Prefix) && !slices.ContainsFunc(lib.Except, func(e string) bool { return strings.HasPrefix(d, e) }) {
					t.Errorf("client %s links %s", c, d)
				}
			}
		}
	}
}
