package policy

import (
	"errors"
	"strings"
	"testing"
)

// TestPlanRefusesNUL: a pattern holding a NUL byte parses (the published
// verifier scores it) but is refused for enforcement, naming its axis
// and index; without the check, a missing write target with a NUL in its
// name gave creation rights on its parent.
func TestPlanRefusesNUL(t *testing.T) {
	root := planFixture(t)
	tests := []struct {
		doc   string
		where string
	}{
		{`{"read":[],"write":["/d/f.txt","/d/x\u0000y"],"execute":[]}`, "policy write[1]"},
		{`{"read":["/d/\u0000/**"],"write":[],"execute":[]}`, "policy read[0]"},
		{`{"read":[],"write":[],"execute":["/d/*\u0000"]}`, "policy execute[0]"},
	}
	for _, tc := range tests {
		pol := mustPolicy(t, tc.doc)
		for _, sem := range []Semantics{SemanticsPrecise, SemanticsPublished} {
			pl, err := CompilePlanWith(pol, NoBaseline(), root, PlanOptions{Semantics: sem})
			if !errors.Is(err, ErrUnenforceablePattern) || !strings.Contains(err.Error(), tc.where) {
				t.Errorf("%s %s: plan %v, err %v; want ErrUnenforceablePattern naming %s", sem, tc.doc, pl, err, tc.where)
			}
		}
		if _, err := CompilePlan(pol, NoBaseline(), root); !errors.Is(err, ErrUnenforceablePattern) {
			t.Errorf("CompilePlan %s: err %v", tc.doc, err)
		}
	}
	spec := &Spec{Source: "spec.json", Implicit: Permissions{Write: []Pattern{MustPattern("/e/\x00")}}}
	if _, err := CompilePlan(nil, SpecBaseline(spec), root); !errors.Is(err, ErrUnenforceablePattern) || !strings.Contains(err.Error(), "baseline write[0]") {
		t.Errorf("baseline with a NUL: err %v", err)
	}
}

func TestParseSemantics(t *testing.T) {
	for in, want := range map[string]Semantics{"": SemanticsPrecise, "precise": SemanticsPrecise, "published": SemanticsPublished} {
		if got, err := ParseSemantics(in); err != nil || got != want {
			t.Errorf("ParseSemantics(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseSemantics("loose"); err == nil {
		t.Error("an unknown semantics was accepted")
	}
	if _, err := CompilePlanWith(nil, NoBaseline(), planFixture(t), PlanOptions{Semantics: "loose"}); err == nil {
		t.Error("CompilePlanWith accepted an unknown semantics")
	}
	pl, err := CompilePlan(nil, NoBaseline(), planFixture(t))
	if err != nil || pl.Semantics != SemanticsPrecise {
		t.Errorf("CompilePlan records semantics %q (err %v), want precise", pl.Semantics, err)
	}
}

// TestDefaultSemanticsPerKind: an unnamed semantics is the command default
// (precise) for ParseSemantics and the given default for ParseSemanticsOr
// (a task run's: published); named ones parse as named; others fail.
func TestDefaultSemanticsPerKind(t *testing.T) {
	for _, c := range []struct {
		in, def, want string
		ok            bool
	}{
		{"", "", "precise", true},
		{"", "published", "published", true},
		{"precise", "published", "precise", true},
		{"published", "precise", "published", true},
		{"Published", "", "", false},
		{"loose", "published", "", false},
	} {
		var got Semantics
		var err error
		if c.def == "" {
			got, err = ParseSemantics(c.in)
		} else {
			got, err = ParseSemanticsOr(c.in, Semantics(c.def))
		}
		if (err == nil) != c.ok || string(got) != c.want {
			t.Errorf("parse %q (default %q) = %q, %v; want %q", c.in, c.def, got, err, c.want)
		}
	}
	if DefaultSemantics != SemanticsPrecise || DefaultTaskSemantics != SemanticsPublished {
		t.Errorf("defaults %q %q", DefaultSemantics, DefaultTaskSemantics)
	}
}
