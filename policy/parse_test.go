package policy

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParsePolicyRejectsBadInput(t *testing.T) {
	bigList := `["/a` + strings.Repeat(`", "/a`, MaxListEntries) + `"]`
	tests := []struct {
		name, doc, field, msg string
	}{
		{"not json", `{read: [`, "", "not valid JSON"},
		{"array", `[]`, "", "must be a JSON object, got an array"},
		{"null", `null`, "", "must be a JSON object, got null"},
		{"trailing data", `{"read":[],"write":[],"execute":[]} {}`, "", "extra data"},
		{"invalid utf8", "{\"read\":[\"/\xff\"],\"write\":[],\"execute\":[]}", "", "not valid UTF-8"},
		{"missing key", `{"read":[],"write":[]}`, "execute", "missing"},
		{"extra key", `{"read":[],"write":[],"execute":[],"network":[]}`, "network", "unknown key"},
		{"list not array", `{"read":"/a","write":[],"execute":[]}`, "read", "must be an array of path strings, got a string"},
		{"list null", `{"read":null,"write":[],"execute":[]}`, "read", "got null"},
		{"entry number", `{"read":[1],"write":[],"execute":[]}`, "read[0]", "must be a string, got a number"},
		{"entry object", `{"read":[],"write":[{}],"execute":[]}`, "write[0]", "got an object"},
		{"entry empty", `{"read":[],"write":[],"execute":["/a",""]}`, "execute[1]", "empty"},
		{"relative", `{"read":["a/b"],"write":[],"execute":[]}`, "read[0]", "not an absolute path"},
		{"mid-path **", `{"read":[],"write":["/a/**/b"],"execute":[]}`, "write[0]", `"**" is only allowed as a trailing "/**"`},
		{"duplicate", `{"read":["/a/b","/a/./b/"],"write":[],"execute":[]}`, "read[1]", "duplicates read[0]"},
		{"too many", `{"read":` + bigList + `,"write":[],"execute":[]}`, "read", "entries (at most"},
		{"64 KiB pattern", `{"read":["/` + strings.Repeat("x", 64<<10) + `"],"write":[],"execute":[]}`, "read[0]", "bytes long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParsePolicy([]byte(tt.doc), "p.json")
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("want a *ValidationError, got %v", err)
			}
			found := false
			for _, p := range ve.Problems {
				found = found || (p.Field == tt.field && strings.Contains(p.Msg, tt.msg))
			}
			if !found {
				t.Fatalf("want problem at %q containing %q, got %v", tt.field, tt.msg, ve.Problems)
			}
			if !strings.HasPrefix(err.Error(), "p.json: ") {
				t.Fatalf("error does not name the file: %v", err)
			}
		})
	}
}

func TestParsePolicyReportsEveryProblem(t *testing.T) {
	_, err := ParsePolicy([]byte(`{"read":["x"],"write":[""],"execute":[3],"y":[]}`), "p.json")
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 4 {
		t.Fatalf("want 4 problems, got %v", err)
	}
	want := "p.json: y: unknown key (allowed: read, write, execute)"
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q lacks %q", err, want)
	}
}

func TestParsePolicyBoundsProblemCount(t *testing.T) {
	doc := `{"read":[` + strings.TrimSuffix(strings.Repeat(`"rel",`, 500), ",") + `],"write":[],"execute":[]}`
	_, err := ParsePolicy([]byte(doc), "p.json")
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != maxProblems+1 {
		t.Fatalf("want %d problems (one saying more were cut), got %d", maxProblems+1, len(ve.Problems))
	}
}

func TestParsePolicyAccepts(t *testing.T) {
	pol, err := ParsePolicy([]byte(`{"read":["/a/**"," /b "],"write":[],"execute":["\\usr\\bin\\ls"]}`), "p.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(pol.Get(Read), pol.Get(Execute)); got != "[/a/** /b] [/usr/bin/ls]" {
		t.Fatalf("parsed %s", got)
	}
}

const validSpecDoc = `{
 "required_permissions": {"read": ["/w/in.txt"], "write": ["/w/out/**"], "execute": ["/usr/bin/python3"]},
 "scored_roots": {"read": ["/w"], "write": ["/w"], "execute": ["/usr/bin"]},
 "implicit_permissions": {"read": ["/usr/**"], "write": [], "execute": []}
}`

func TestParseSpec(t *testing.T) {
	spec, err := ParseSpec([]byte(validSpecDoc), "spec.json")
	if err != nil {
		t.Fatal(err)
	}
	if spec.Sensitive != nil || len(spec.Required.Get(Write)) != 1 || len(spec.Implicit.Get(Read)) != 1 {
		t.Fatalf("parsed %+v", spec)
	}
}

func TestParseSpecRejectsBadInput(t *testing.T) {
	tests := []struct {
		name, old, new, field, msg string
	}{
		{"glob root", `"read": ["/w"]`, `"read": ["/w/*"]`, "scored_roots.read[0]", "must be an exact path"},
		{"recursive root", `"write": ["/w"]`, `"write": ["/w/**"]`, "scored_roots.write[0]", "must be an exact path"},
		{"mid-path", `"write": ["/w/out/**"]`, `"write": ["/w/**/x", "/w/a", "/w/**/b"]`, "required_permissions.write[2]", `"**" is only allowed as a trailing "/**"`},
		{"missing field", `"implicit_permissions": {"read": ["/usr/**"], "write": [], "execute": []}`, `"other": 1`, "implicit_permissions", "missing"},
		{"field type", `"implicit_permissions": {"read": ["/usr/**"], "write": [], "execute": []}`, `"implicit_permissions": []`, "implicit_permissions", "must be a JSON object"},
		{"sensitive keys", `"implicit_permissions"`, `"sensitive_permissions": {"read": []}, "implicit_permissions"`, "sensitive_permissions.write", "missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := strings.Replace(validSpecDoc, tt.old, tt.new, 1)
			if doc == validSpecDoc {
				t.Fatalf("test edit %q did not apply", tt.old)
			}
			_, err := ParseSpec([]byte(doc), "spec.json")
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("want a *ValidationError, got %v", err)
			}
			for _, p := range ve.Problems {
				if p.Field == tt.field && strings.Contains(p.Msg, tt.msg) {
					return
				}
			}
			t.Fatalf("want problem at %q containing %q, got %v", tt.field, tt.msg, ve.Problems)
		})
	}
}
