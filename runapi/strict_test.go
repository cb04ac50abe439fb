package runapi

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestDecodeRunRequestExactNames: inside a member, at every depth, a
// field name differing from the API's only in case and a key given twice
// are refused with a *FieldError naming the full path, where the JSON
// package would take the last (or case-folded) one silently.
func TestDecodeRunRequestExactNames(t *testing.T) {
	for _, c := range []struct {
		name, body, field, msg string
	}{
		{"case variant beside the field", `{"exec":{"command":["/bin/true"],"Command":["/bin/sh"]}}`, "exec.Command", "unknown field (field names are exact)"},
		{"case variant alone", `{"exec":{"COMMAND":["/bin/sh"]}}`, "exec.COMMAND", "unknown field (field names are exact)"},
		{"field twice", `{"exec":{"command":["/bin/true"],"command":["/bin/sh"]}}`, "exec.command", "given twice"},
		{"bool twice", `{"exec":{"command":["x"],"no_seccomp":false,"no_seccomp":true}}`, "exec.no_seccomp", "given twice"},
		{"task field case", `{"task":{"dir":"/t","Agent":"oracle"}}`, "task.Agent", "unknown field (field names are exact)"},
		{"model field case", `{"task":{"dir":"/t","model":{"Base_URL":"http://x"}}}`, "task.model.Base_URL", "unknown field (field names are exact)"},
		{"model field twice", `{"task":{"dir":"/t","model":{"api_key":"a","api_key":"b"}}}`, "task.model.api_key", "given twice"},
		{"generate model twice", `{"generate":{"dir":"/t","model":{"model":"a","model":"b"}}}`, "generate.model.model", "given twice"},
		{"map key twice", `{"build":{"base_map":{"python":"a","python":"b"}}}`, "build.base_map.python", "given twice"},
		{"map keys differing in case are two keys", `{"build":{"build_args":{"V":"1","v":"2"}},"timeout_s":1}`, "", ""},
		{"policy key twice", `{"exec":{"command":["x"],"policy":{"read":["/a"],"read":["/"]}}}`, "exec.policy.read", "given twice"},
		{"task policy nested twice", `{"task":{"dir":"/t","policy":{"x":{"y":1,"y":2}}}}`, "task.policy.x.y", "given twice"},
		{"seccomp key twice in an array", `{"exec":{"command":["x"],"seccomp":{"syscalls":[{"names":["a"]},{"action":"x","action":"y"}]}}}`, "exec.seccomp.syscalls[1].action", "given twice"},
		{"policy keys are free", `{"exec":{"command":["x"],"policy":{"Read":["/a"],"read":["/b"]}}}`, "", ""},
		{"unknown field below an array", `{"task":{"dir":"/t","agent_allow_hosts":["a:1"],"model":{"x":{"y":1}}}}`, "task.model.x", "unknown field"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, err := DecodeRunRequest([]byte(c.body))
			if c.field == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if _, err := req.Kind(); err != nil {
					t.Fatal(err)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("got %v (%T), want a *FieldError", err, err)
			}
			if fe.Field != c.field || fe.Msg != c.msg {
				t.Fatalf("got %q: %q, want %q: %q", fe.Field, fe.Msg, c.field, c.msg)
			}
		})
	}
}

// TestCheckExactDepth: the walk itself stops at the JSON package's depth
// bound (the request decoder refuses such a body before, as malformed),
// so that no body grows its stack without bound.
func TestCheckExactDepth(t *testing.T) {
	deep := `{"command":["x"],"policy":` + strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1) + `}`
	err := checkExact([]byte(deep), reflect.TypeFor[*ExecRequest](), "exec")
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Msg != "nested deeper than 10000 levels" || !strings.HasPrefix(fe.Field, "exec.policy[0][0]") {
		t.Fatalf("got %v", err)
	}
	ok := `{"command":["x"],"policy":` + strings.Repeat("[", maxDepth-2) + strings.Repeat("]", maxDepth-2) + `}`
	if err := checkExact([]byte(ok), reflect.TypeFor[*ExecRequest](), "exec"); err != nil {
		t.Fatalf("nesting within the bound refused: %.200v", err)
	}
}

// covers reports whether the encoding enc of a decoded request holds
// every value of the body it was decoded from: each key with its value,
// or (when the encoding omits it) a zero value; so that no key of the
// body was dropped, folded into another or overridden.
func covers(body, enc any) bool {
	switch b := body.(type) {
	case map[string]any:
		e, ok := enc.(map[string]any)
		if !ok {
			return enc == nil && isZeroJSON(b)
		}
		for k, v := range b {
			ev, ok := e[k]
			if !ok && !isZeroJSON(v) || ok && !covers(v, ev) {
				return false
			}
		}
		return true
	case []any:
		e, ok := enc.([]any)
		if !ok {
			return enc == nil && len(b) == 0
		}
		if len(e) != len(b) {
			return false
		}
		for i := range b {
			if !covers(b[i], e[i]) {
				return false
			}
		}
		return true
	}
	return enc == body || enc == nil && isZeroJSON(body)
}

// isZeroJSON: a value that omitempty leaves out (null, "", 0, false,
// [], or an object of such).
func isZeroJSON(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case float64:
		return x == 0
	case bool:
		return !x
	case []any:
		return len(x) == 0
	case map[string]any:
		for _, e := range x {
			if !isZeroJSON(e) {
				return false
			}
		}
		return true
	}
	return false
}

// TestCovers: the fuzz test's property fails on what the JSON package
// alone would accept (a case variant, a key twice).
func TestCovers(t *testing.T) {
	for _, c := range []struct {
		body string
		want bool
	}{
		{`{"exec":{"command":["x"],"trace":false,"env":[]}}`, true},
		{`{"exec":{"Command":["x"]}}`, false},
		{`{"exec":{"command":["x"],"dir":"/a"}}`, false},
		{`{"exec":{"command":["x","y"]}}`, false},
	} {
		var body any
		if err := json.Unmarshal([]byte(c.body), &body); err != nil {
			t.Fatal(err)
		}
		var req RunRequest
		if err := json.Unmarshal([]byte(`{"exec":{"command":["x"]}}`), &req); err != nil {
			t.Fatal(err)
		}
		if got := covers(body, normalJSON(t, &req)); got != c.want {
			t.Errorf("covers(%s, {exec:{command:[x]}}) = %v, want %v", c.body, got, c.want)
		}
	}
}
