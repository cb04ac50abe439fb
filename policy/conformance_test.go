package policy

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// fixtureEntry is one entry of testdata/scoring/fixture.json.
type fixtureEntry struct {
	Path   string `json:"path"`
	Kind   string `json:"kind"`
	Mode   string `json:"mode"`
	Target string `json:"target"`
}

// buildFixture lays out the scoring fixture under a new temporary root.
// Absolute link targets mean "inside the same root" and stay absolute.
func buildFixture(t testing.TB) string {
	t.Helper()
	data, err := os.ReadFile("testdata/scoring/fixture.json")
	if err != nil {
		t.Fatal(err)
	}
	var entries []fixtureEntry
	if err := json.Unmarshal(data, &entries); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, e := range entries {
		host := filepath.Join(dir, e.Path)
		switch e.Kind {
		case "dir":
			if err := os.MkdirAll(host, 0o755); err != nil {
				t.Fatal(err)
			}
		case "file":
			if err := os.WriteFile(host, []byte("content of "+e.Path+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		case "link":
			if err := os.Symlink(e.Target, host); err != nil {
				t.Fatal(err)
			}
			continue
		default:
			t.Fatalf("fixture entry %s: unknown kind %q", e.Path, e.Kind)
		}
		mode, err := strconv.ParseUint(e.Mode, 0, 32)
		if err != nil {
			t.Fatalf("fixture entry %s: mode %q: %v", e.Path, e.Mode, err)
		}
		if err := os.Chmod(host, os.FileMode(mode)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type scoringCase struct {
	Name      string          `json:"name"`
	PolicyRaw string          `json:"policy_raw"`
	Spec      json.RawMessage `json:"spec"`
	Expected  map[string]any  `json:"expected"`
}

func loadCases(t testing.TB) []scoringCase {
	t.Helper()
	f, err := os.Open("testdata/scoring/cases.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []scoringCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c scoringCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// scoreDocuments scores raw documents the way `authbench score` does; an
// invalid policy or spec gives an invalid score.
func scoreDocuments(t testing.TB, policyRaw, specRaw []byte, root *Root) *Score {
	t.Helper()
	pol, err := ParsePolicy(policyRaw, "policy.json")
	if err != nil {
		return InvalidScore(err)
	}
	spec, err := ParseSpec(specRaw, "spec.json")
	if err != nil {
		return InvalidScore(err)
	}
	sc, err := ScorePolicy(pol, spec, root)
	if err != nil {
		return InvalidScore(err)
	}
	return sc
}

// TestConformanceWithPublishedVerifier checks every worked case of
// testdata/scoring (computed by the published AuthBench verifier).
func TestConformanceWithPublishedVerifier(t *testing.T) {
	root, err := NewRoot(buildFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	cases := loadCases(t)
	if len(cases) < 80 {
		t.Fatalf("only %d cases loaded", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			got := scoreDocuments(t, []byte(c.PolicyRaw), c.Spec, root)
			raw, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			var gotMap map[string]any
			if err := json.Unmarshal(raw, &gotMap); err != nil {
				t.Fatal(err)
			}
			compareScores(t, c.Expected, gotMap)
		})
	}
}

func compareScores(t *testing.T, want, got map[string]any) {
	t.Helper()
	if want["valid"] != got["valid"] {
		t.Fatalf("valid: want %v, got %v (%v)", want["valid"], got["valid"], got["error"])
	}
	if want["valid"] == false {
		return
	}
	for _, a := range Axes {
		w := want[a.String()].(map[string]any)
		g := got[a.String()].(map[string]any)
		for _, m := range []string{"precision", "recall", "f1"} {
			if math.Abs(w[m].(float64)-g[m].(float64)) > 1e-9 {
				t.Errorf("%s.%s: want %v, got %v", a, m, w[m], g[m])
			}
		}
	}
	wc, wok := want["sensitive_exposure_coverage"]
	gc, gok := got["sensitive_exposure_coverage"]
	if wok != gok {
		t.Fatalf("sensitive_exposure_coverage present: want %v, got %v", wok, gok)
	}
	if wok && math.Abs(wc.(float64)-gc.(float64)) > 1e-9 {
		t.Errorf("sensitive_exposure_coverage: want %v, got %v", wc, gc)
	}
}
