package policy

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path"
	"path/filepath"
	"testing"
)

// referenceScore is the published semantics (the scoring section of
// docs/scoring.md) computed the plain way: every candidate and every
// expansion stored as a set. ScorePolicy streams them instead; the
// differential test below holds the two equal.
func referenceScore(pol *Policy, spec *Spec, root *Root) *Score {
	sc := &Score{Valid: true}
	num, den := 0, 0
	for _, a := range Axes {
		exec := a == Execute
		res := func(p Pattern) (Pattern, bool) {
			if !exec {
				return p, true
			}
			if p.Recursive() && p.Base() == "/" {
				return Pattern{}, false
			}
			return p.withBase(root.Realpath(p.Base())), true
		}
		cands := map[string]bool{}
		add := func(p string) {
			if exec {
				p = root.Realpath(p)
			}
			cands[p] = true
		}
		var walk func(dir string)
		walk = func(dir string) {
			entries, err := os.ReadDir(root.HostPath(root.Realpath(dir)))
			if err != nil {
				return
			}
			for _, e := range entries {
				p := path.Join(dir, e.Name())
				switch {
				case e.Type()&fs.ModeSymlink != 0:
					if !root.IsDir(p) {
						keepRef(root, exec, p, add)
					}
				case e.IsDir():
					walk(p)
				default:
					keepRef(root, exec, p, add)
				}
			}
		}
		for _, sr := range spec.ScoredRoots.Get(a) {
			st, err := root.Stat(sr.Base())
			switch {
			case err != nil:
			case st.IsDir():
				walk(sr.Base())
			default:
				keepRef(root, exec, sr.Base(), add)
			}
		}
		for _, r := range spec.Required.Get(a) {
			if r.IsExact() {
				add(r.Base())
			}
		}
		expand := func(ps []Pattern) map[string]bool {
			out := map[string]bool{}
			for _, p := range ps {
				q, ok := res(p)
				if !ok {
					continue
				}
				hit := false
				for c := range cands {
					if q.Match(c) {
						out[c], hit = true, true
					}
				}
				if !hit && p.IsExact() && !root.IsDir(q.Base()) {
					out[q.Base()] = true
				}
			}
			return out
		}
		granted, required := expand(pol.Get(a)), expand(spec.Required.Get(a))
		if spec.Sensitive != nil {
			for s := range expand(spec.Sensitive.Get(a)) {
				den++
				if granted[s] {
					num++
				}
			}
		}
		for _, p := range spec.Implicit.Get(a) {
			if q, ok := res(p); ok {
				for _, set := range []map[string]bool{granted, required} {
					for x := range set {
						if q.Match(x) {
							delete(set, x)
						}
					}
				}
			}
		}
		hit := 0
		for x := range granted {
			if required[x] {
				hit++
			}
		}
		sc.Axes[a] = axisTally{granted: len(granted), required: len(required), hit: hit}.metrics()
	}
	if spec.Sensitive != nil {
		cov := 0.0
		if den > 0 {
			cov = float64(num) / float64(den)
		}
		sc.SensitiveCoverage = &cov
	}
	return sc
}

func keepRef(root *Root, exec bool, p string, add func(string)) {
	if !exec {
		add(p)
		return
	}
	if st, err := root.Stat(p); err == nil && !st.IsDir() && st.Mode().Perm()&0o111 != 0 {
		add(p)
	}
}

// randomTree lays out a small tree with the shapes the walk must get
// right: nested and symlinked directories, symlinks to files, to
// directories, dangling, absolute and relative, loops, executables.
func randomTree(t *testing.T, rng *rand.Rand) (string, []string) {
	dir := t.TempDir()
	names := []string{"a", "b", "c", "bin", "x.py", "y.sh", "z"}
	paths := []string{"/"}
	dirs := []string{"/"}
	for i := 0; i < 40; i++ {
		parent := dirs[rng.Intn(len(dirs))]
		p := path.Join(parent, names[rng.Intn(len(names))]+fmt.Sprint(rng.Intn(3)))
		host := filepath.Join(dir, p)
		if _, err := os.Lstat(host); err == nil {
			continue
		}
		switch k := rng.Intn(10); {
		case k < 3:
			if err := os.Mkdir(host, 0o755); err != nil {
				t.Fatal(err)
			}
			dirs = append(dirs, p)
		case k < 7:
			mode := os.FileMode(0o644)
			if rng.Intn(2) == 0 {
				mode = 0o755
			}
			if err := os.WriteFile(host, nil, mode); err != nil {
				t.Fatal(err)
			}
		default:
			target := paths[rng.Intn(len(paths))]
			if rng.Intn(2) == 0 {
				if rel, err := filepath.Rel(parent, target); err == nil {
					target = rel
				}
			}
			if rng.Intn(8) == 0 {
				target = "missing" + fmt.Sprint(i)
			}
			if err := os.Symlink(target, host); err != nil {
				t.Fatal(err)
			}
		}
		paths = append(paths, p)
	}
	return dir, paths
}

// randomPatterns picks n patterns over the tree: exact paths (existing or
// not), recursive ones and globs.
func randomPatterns(rng *rand.Rand, paths []string, n int, exactOnly bool) []string {
	var out []string
	seen := map[string]bool{}
	for len(out) < n {
		p := paths[rng.Intn(len(paths))]
		if !exactOnly {
			switch rng.Intn(5) {
			case 0:
				p = path.Join(p, "**")
			case 1:
				p = path.Join(path.Dir(p), "*"+path.Base(p)[1:])
			case 2:
				p = path.Join(p, "nope")
			}
		}
		if p == "/" && exactOnly {
			continue
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// TestScoreStreamMatchesReference holds the streaming scorer equal to the
// plain set-based computation on random trees with overlapping and
// symlinked scored roots.
func TestScoreStreamMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 300; trial++ {
		dir, paths := randomTree(t, rng)
		obj := func(n int, exactOnly bool) map[string][]string {
			m := map[string][]string{}
			for _, a := range []string{"read", "write", "execute"} {
				m[a] = randomPatterns(rng, paths, 1+rng.Intn(n), exactOnly)
			}
			return m
		}
		roots := obj(3, true)
		required := map[string][]string{}
		for a, rs := range roots {
			// Required entries lie inside the axis's scored roots.
			for _, p := range randomPatterns(rng, paths, 1+rng.Intn(4), false) {
				for _, r := range rs {
					if isWithin(p, r) {
						required[a] = append(required[a], p)
						break
					}
				}
			}
			if required[a] == nil {
				required[a] = []string{}
			}
		}
		specDoc := map[string]any{
			"required_permissions":  required,
			"scored_roots":          roots,
			"implicit_permissions":  obj(1, false),
			"sensitive_permissions": obj(2, false),
		}
		specJSON, _ := json.Marshal(specDoc)
		spec, err := ParseSpec(specJSON, "spec.json")
		if err != nil {
			continue // e.g. a required entry outside a scored root after cleaning
		}
		polJSON, _ := json.Marshal(obj(4, false))
		pol, err := ParsePolicy(polJSON, "policy.json")
		if err != nil {
			continue
		}
		root, err := NewRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		got, gotErr := ScorePolicy(pol, spec, root)
		if gotErr != nil {
			continue // an execute requirement outside the roots: both refuse it
		}
		ref, err := NewRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		want := referenceScore(pol, spec, ref)
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if string(g) != string(w) {
			t.Fatalf("trial %d: streamed %s\nreference %s\nspec %s\npolicy %s", trial, g, w, specJSON, polJSON)
		}
	}
}
