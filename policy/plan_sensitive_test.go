package policy

import (
	"errors"
	"strings"
	"testing"
)

// TestSensitiveGrantsFollowTheEnforcedPlan: a sensitive file is granted
// when the plan's rules reach it, whatever the policy names: a listed
// directory's hierarchy, a missing file's nearest existing ancestor
// (published), a written file's parent directory (published); an exact
// entry of a sibling grants nothing.
func TestSensitiveGrantsFollowTheEnforcedPlan(t *testing.T) {
	root := planFixture(t)
	sens := mustPermissions([3][]string{Read: {"/d/.hidden"}, Write: {"/d/g.txt"}})
	spec := &Spec{Sensitive: &sens}
	tests := []struct {
		name   string
		policy string
		sem    Semantics
		want   []string // "axis path rule"
	}{
		{"a sibling file grants nothing", `{"read":["/d/f.txt"],"write":[],"execute":[]}`, SemanticsPublished, nil},
		{"a listed directory grants the files below it", `{"read":["/d"],"write":[],"execute":[]}`, SemanticsPublished, []string{"read /d/.hidden /d"}},
		{"the same under precise semantics", `{"read":["/d"],"write":[],"execute":[]}`, SemanticsPrecise, []string{"read /d/.hidden /d"}},
		{"a missing file grants its nearest existing ancestor", `{"read":["/d/made-at-run-time.txt"],"write":[],"execute":[]}`, SemanticsPublished, []string{"read /d/.hidden /d"}},
		{"a missing file grants nothing under precise semantics", `{"read":["/d/made-at-run-time.txt"],"write":[],"execute":[]}`, SemanticsPrecise, nil},
		{"a written sibling grants its parent directory", `{"read":[],"write":["/d/f.txt"],"execute":[]}`, SemanticsPublished, []string{"write /d/g.txt /d"}},
		{"a written sibling grants nothing of the other under precise semantics", `{"read":[],"write":["/d/f.txt"],"execute":[]}`, SemanticsPrecise, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gs, err := PolicySensitiveGrants(mustPolicy(t, tc.policy), spec, root, tc.sem)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, g := range gs {
				got = append(got, g.Axis.String()+" "+g.Path+" "+g.Rule)
				if len(g.Patterns) == 0 {
					t.Errorf("grant %+v names no pattern", g)
				}
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("grants %v, want %v", got, tc.want)
			}
		})
	}
}

// TestSensitiveGrantsOfARecursivePattern: a sensitive dir/** stands for
// every file below it; the baseline's rules do not count unless asked.
func TestSensitiveGrantsOfARecursivePattern(t *testing.T) {
	root := planFixture(t)
	sens := mustPermissions([3][]string{Read: {"/d/sub/**"}})
	base := Baseline{Name: "test", Permissions: mustPermissions([3][]string{Read: {"/d/**"}})}
	pl, err := CompilePlanWith(mustPolicy(t, `{"read":["/d/f.txt"],"write":[],"execute":[]}`), base, root, PlanOptions{Semantics: SemanticsPublished})
	if err != nil {
		t.Fatal(err)
	}
	if gs := pl.SensitiveGrants(&sens, root); len(gs) != 0 {
		t.Errorf("policy grants %v, want none (only the baseline reaches /d/sub)", gs)
	}
	gs := pl.SensitiveGrants(&sens, root, OriginBaseline)
	if len(gs) != 1 || gs[0].Path != "/d/sub/n.txt" || gs[0].Patterns[0] != "read /d/**" {
		t.Errorf("baseline grants %+v, want /d/sub/n.txt through read /d/**", gs)
	}
}

// TestLintSpecNamesTheOverlap: a required entry that a sensitive entry
// overlaps is one error, naming both entries with their places.
func TestLintSpecNamesTheOverlap(t *testing.T) {
	spec, err := ParseSpec([]byte(`{"required_permissions":{"read":["/app/in.txt","/app/**"],"write":[],"execute":[]},
		"scored_roots":{"read":["/app"],"write":["/app"],"execute":[]},
		"implicit_permissions":{"read":[],"write":[],"execute":[]},
		"sensitive_permissions":{"read":["/etc/shadow","/app/.env"],"write":[],"execute":[]}}`), "spec.json")
	if err != nil {
		t.Fatal(err)
	}
	err = LintSpec(spec)
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 1 {
		t.Fatalf("lint %v, want one overlap", err)
	}
	want := `spec.json: required_permissions.read[1]: "/app/**" overlaps sensitive_permissions.read[1] "/app/.env": the oracle would have to reach what the spec marks sensitive`
	if err.Error() != want {
		t.Errorf("message\n%s\nwant\n%s", err, want)
	}
	spec.Required[Read] = spec.Required[Read][:1]
	if err := LintSpec(spec); err != nil {
		t.Errorf("lint of a spec without overlap: %v", err)
	}
}
