package policy

import (
	"encoding/json"
	"errors"
	"path"
	"strings"
	"testing"
)

func addPolicySeeds(f *testing.F) {
	for _, s := range []string{
		`{"read":["/a/**"],"write":["/tmp/x"],"execute":["/usr/bin/*"]}`,
		`{"read":[],"write":[],"execute":[]}`,
		`{"read":["/a/[!b]*","\\a\\b"," /c/./d/.. "],"write":["/**"],"execute":["/x/[a-"]}`,
		`{"read":["rel"],"write":[""],"execute":[1]}`,
		`{read: [`, `[]`, `null`, `{"read":[],"write":[]}`,
	} {
		f.Add([]byte(s))
	}
}

// FuzzParsePolicy: no input panics; a rejection always names the source
// and says what is wrong; an accepted policy survives a round trip.
func FuzzParsePolicy(f *testing.F) {
	addPolicySeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		pol, err := ParsePolicy(data, "fuzz.json")
		if err != nil {
			checkRejection(t, err)
			return
		}
		out, err := json.Marshal(pol.Permissions)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParsePolicy(out, "again.json")
		if err != nil {
			t.Fatalf("normalised policy %s does not parse: %v", out, err)
		}
		out2, _ := json.Marshal(again.Permissions)
		if string(out) != string(out2) {
			t.Fatalf("normalisation is not idempotent: %s then %s", out, out2)
		}
	})
}

// FuzzParseSpec: like FuzzParsePolicy, for specs.
func FuzzParseSpec(f *testing.F) {
	f.Add([]byte(validSpecDoc))
	f.Add([]byte(`{"required_permissions":{"read":[],"write":[],"execute":[]},"scored_roots":{"read":["/a*"],"write":[],"execute":[]},"implicit_permissions":{"read":[],"write":[],"execute":[]},"sensitive_permissions":{"read":["/a/**"],"write":[],"execute":[]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		spec, err := ParseSpec(data, "fuzz.json")
		if err != nil {
			checkRejection(t, err)
			return
		}
		for _, a := range Axes {
			for _, r := range spec.ScoredRoots.Get(a) {
				if !r.IsExact() {
					t.Fatalf("scored root %q accepted but not exact", r)
				}
			}
		}
	})
}

func checkRejection(t *testing.T, err error) {
	t.Helper()
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) == 0 {
		t.Fatalf("rejection is not a ValidationError with problems: %v", err)
	}
	for _, p := range ve.Problems {
		if p.Msg == "" {
			t.Fatalf("problem without a message at %q", p.Field)
		}
	}
	if !strings.HasPrefix(err.Error(), "fuzz.json: ") {
		t.Fatalf("error does not name the source: %q", err)
	}
}

// FuzzMatch: no pattern or path panics; exact patterns match exactly
// their own path; a recursive pattern matches its own base and below.
func FuzzMatch(f *testing.F) {
	for _, s := range [][2]string{
		{"/a/b", "/a/b"}, {"/a/*", "/a/b"}, {"/a/[!x]", "/a/y"}, {"/a/**", "/a/b/c"},
		{"/[a-", "/[a-"}, {"/a/[]-]", "/a/-"}, {"/**", "/"}, {"/a/*b*c", "/a/bbc"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		p, err := ParsePattern(pattern)
		if err != nil {
			return
		}
		clean := path.Clean("/" + name)
		got := p.Match(clean)
		if !p.HasGlob() {
			want := clean == p.Base() || (p.Recursive() && isWithin(clean, p.Base()))
			if got != want {
				t.Fatalf("%q.Match(%q) = %v, want %v", p, clean, got, want)
			}
		}
		if p.Recursive() && !p.Match(p.Base()) && !p.HasGlob() {
			t.Fatalf("%q does not match its own base", p)
		}
		if p.IsExact() && !p.Match(p.String()) {
			t.Fatalf("exact %q does not match itself", p)
		}
	})
}
