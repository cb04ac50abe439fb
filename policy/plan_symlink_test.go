package policy

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
)

// symlinkFixture builds an environment root with symlinks of every kind:
//
//	/secret/key, /secret/other      root's files (0755 directory)
//	/tmp/w/              (0777)     a directory any user may write
//	/tmp/w/report.txt -> /secret/key       planted: its directory is world-writable
//	/tmp/w/fresh      -> /secret/new.txt   planted and dangling
//	/srv/data         -> /secret           root's own link to a directory
//	/srv/alias.txt    -> real.txt          root's own link to a sibling
//	/srv/real.txt
//	/srv/mine         -> /secret/other     owned by uid 1000 when run as root
func symlinkFixture(t *testing.T) (root *Root, chowned bool) {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"secret/key", "secret/other", "srv/real.txt"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "tmp/w"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "tmp/w"), 0o777); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"tmp/w/report.txt": "/secret/key", "tmp/w/fresh": "/secret/new.txt",
		"srv/data": "/secret", "srv/alias.txt": "real.txt", "srv/mine": "/secret/other",
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	if os.Geteuid() == 0 {
		if err := os.Lchown(filepath.Join(dir, "srv/mine"), 1000, 1000); err != nil {
			t.Fatal(err)
		}
		chowned = true
	}
	root, err := NewRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	return root, chowned
}

func TestPlanSymlinkTargets(t *testing.T) {
	root, chowned := symlinkFixture(t)
	tests := []struct {
		name   string
		policy string
		owned  bool      // needs the chowned link (root only)
		only   Semantics // "" for both semantics
		wider  []string  // link>target@rule path, symlink widenings only
		loud   []string  // planted-link pattern
	}{
		{"planted link to a secret, write", `{"read":[],"write":["/tmp/w/report.txt"],"execute":[]}`, false, "",
			[]string{"/tmp/w/report.txt>/secret/key@/secret/key"}, []string{"/tmp/w/report.txt"}},
		{"planted link to a secret, read", `{"read":["/tmp/w/report.txt"],"write":[],"execute":[]}`, false, "",
			[]string{"/tmp/w/report.txt>/secret/key@/secret/key"}, []string{"/tmp/w/report.txt"}},
		{"planted dangling link: create rights in the target's directory", `{"read":[],"write":["/tmp/w/fresh"],"execute":[]}`, false, SemanticsPrecise,
			[]string{"/tmp/w/fresh>/secret/new.txt@/secret"}, []string{"/tmp/w/fresh"}},
		// published: the rights go to the link's own directory, which
		// does not let the link's target be created
		{"planted dangling link, published", `{"read":[],"write":["/tmp/w/fresh"],"execute":[]}`, false, SemanticsPublished,
			nil, nil},
		{"glob reaching a planted link", `{"read":["/tmp/w/*.txt"],"write":[],"execute":[]}`, false, "",
			[]string{"/tmp/w/report.txt>/secret/key@/secret/key"}, []string{"/tmp/w/*.txt"}},
		{"root's link in a middle component", `{"read":["/srv/data/key"],"write":[],"execute":[]}`, false, "",
			[]string{"/srv/data>/secret/key@/secret/key"}, nil},
		{"root's link, recursive", `{"read":["/srv/data/**"],"write":[],"execute":[]}`, false, "",
			[]string{"/srv/data>/secret@/secret"}, nil},
		{"missing file below a linked directory", `{"read":[],"write":["/srv/data/new.txt"],"execute":[]}`, false, "",
			[]string{"/srv/data>/secret/new.txt@/secret"}, nil},
		{"target named on the same axis is not wider", `{"read":["/srv/alias.txt","/srv/real.txt"],"write":[],"execute":[]}`, false, "",
			nil, nil},
		{"target named on another axis is still wider", `{"read":["/srv/alias.txt"],"write":["/srv/real.txt"],"execute":[]}`, false, "",
			[]string{"/srv/alias.txt>/srv/real.txt@/srv/real.txt"}, nil},
		{"target matched by a recursive pattern", `{"read":["/srv/data/key","/secret/**"],"write":[],"execute":[]}`, false, "",
			nil, nil},
		{"link owned by another uid", `{"read":[],"write":[],"execute":["/srv/mine"]}`, true, "",
			[]string{"/srv/mine>/secret/other@/secret/other"}, []string{"/srv/mine"}},
		{"no link, nothing", `{"read":["/secret/key"],"write":["/secret/new.txt"],"execute":[]}`, false, "",
			nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.owned && !chowned {
				t.Skip("chowning a symlink needs root")
			}
			for _, sem := range []Semantics{SemanticsPrecise, SemanticsPublished} {
				if tc.only != "" && tc.only != sem {
					continue
				}
				pl, err := CompilePlanWith(mustPolicy(t, tc.policy), NoBaseline(), root, PlanOptions{Semantics: sem})
				if err != nil {
					t.Fatalf("%s: %v", sem, err)
				}
				var wider []string
				for _, w := range pl.Wider {
					if w.Kind == WiderSymlink {
						wider = append(wider, w.Link+">"+w.Target+"@"+w.Path)
						if !pl.Allowed(w.Path).Has(w.Extra) {
							t.Errorf("%s: widening %+v names rights the plan does not grant", sem, w)
						}
					}
				}
				if !reflect.DeepEqual(wider, tc.wider) {
					t.Errorf("%s: symlink widenings\n got %q\nwant %q", sem, wider, tc.wider)
				}
				var loud []string
				for _, w := range pl.LoudWarnings() {
					if w.Code == WarnPlantedLink {
						loud = append(loud, w.Pattern)
					}
				}
				if !reflect.DeepEqual(loud, tc.loud) {
					t.Errorf("%s: planted-link warnings %q, want %q (all: %+v)", sem, loud, tc.loud, pl.Warnings)
				}

				_, err = CompilePlanWith(mustPolicy(t, tc.policy), NoBaseline(), root, PlanOptions{Semantics: sem, RefuseSymlinks: true})
				var se *SymlinkError
				switch {
				case len(tc.wider) == 0 && err != nil:
					t.Errorf("%s: refusing symlinks: %v, want no error", sem, err)
				case len(tc.wider) > 0 && !errors.As(err, &se):
					t.Errorf("%s: refusing symlinks: %v, want a *SymlinkError", sem, err)
				case len(tc.wider) > 0:
					if got := se.Link + ">" + se.Target; got+"@" != tc.wider[0][:len(got)+1] {
						t.Errorf("%s: error names %s, want %s", sem, got, tc.wider[0])
					}
					if !errors.Is(err, ErrSymlinkTarget) || (se.Planted != "") != (len(tc.loud) > 0) {
						t.Errorf("%s: error %v: Is(ErrSymlinkTarget)=%v planted=%q", sem, err, errors.Is(err, ErrSymlinkTarget), se.Planted)
					}
				}
			}
		})
	}
}

func TestRootLinksOn(t *testing.T) {
	root, _ := symlinkFixture(t)
	tests := map[string][]string{
		"/secret/key":          nil,
		"/srv/data/key":        {"/srv/data"},
		"/srv/alias.txt":       {"/srv/alias.txt"},
		"/srv/data/nope/x":     {"/srv/data"},
		"/tmp/w/report.txt":    {"/tmp/w/report.txt"},
		"/tmp/w/fresh":         {"/tmp/w/fresh"},
		"/tmp/w/not-a-link.md": nil,
	}
	for p, want := range tests {
		got := root.LinksOn(p)
		sort.Strings(got)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("LinksOn(%s) = %q, want %q", p, got, want)
		}
	}
}
