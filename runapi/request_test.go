package runapi

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestDecodeRunRequest: the union decodes with exactly one member; zero
// or two members, an unknown field anywhere, a field given twice, a
// wrong type, trailing data and a timeout out of range (for every kind)
// are refused with a *FieldError naming the field.
func TestDecodeRunRequest(t *testing.T) {
	for _, c := range []struct {
		name, body string
		kind       Kind
		field      string // the refused field; "-" for a refusal of the whole request
	}{
		{"exec", `{"exec":{"command":["/bin/true"],"env":["A=1"],"trace":true},"timeout_s":5}`, KindExec, ""},
		{"task", `{"task":{"dir":"/t","policy_source":"policy","agent":"oracle","policy":{"read":["/**"]}}}`, KindTask, ""},
		{"generate", `{"generate":{"dir":"/t","generator":"spec","timeout_s":60},"timeout_s":600}`, KindGenerate, ""},
		{"build", `{"build":{"family":"authbench-base"}}`, KindBuild, ""},
		{"null member is absent", `{"exec":{"command":["/bin/true"]},"task":null}`, KindExec, ""},
		{"no member", `{"timeout_s":5}`, "", "-"},
		{"empty object", `{}`, "", "-"},
		{"only null members", `{"exec":null,"build":null}`, "", "-"},
		{"two members", `{"exec":{"command":["/bin/true"]},"task":{"dir":"/t"}}`, "", "task"},
		{"three members", `{"generate":{"dir":"/t"},"build":{},"exec":{"command":["x"]}}`, "", "generate"},
		{"unknown top-level field", `{"exec":{"command":["x"]},"command":["x"]}`, "", "command"},
		{"flat request of old", `{"command":["/bin/true"],"trace":true}`, "", "command"},
		{"unknown member", `{"shell":{"command":"x"}}`, "", "shell"},
		{"unknown field in exec", `{"exec":{"command":["x"],"comand":["y"]}}`, "", "exec.comand"},
		{"unknown field in task", `{"task":{"dir":"/t","wait_tree":true}}`, "", "task.wait_tree"},
		{"unknown field in task model", `{"task":{"dir":"/t","model":{"base_url":"http://x","bogus":1}}}`, "", "task.model.bogus"},
		{"exec field in generate", `{"generate":{"dir":"/t","policy":{}}}`, "", "generate.policy"},
		{"unknown field in build", `{"build":{"dir":"/t","command":["x"]}}`, "", "build.command"},
		{"member twice", `{"exec":{"command":["x"]},"exec":{"command":["y"]}}`, "", "exec"},
		{"common field twice", `{"exec":{"command":["x"]},"timeout_s":1,"timeout_s":2}`, "", "timeout_s"},
		{"wrong type in member", `{"exec":{"command":"x"}}`, "", "exec.command"},
		{"wrong member type", `{"task":"x"}`, "", "task"},
		{"wrong common type", `{"exec":{"command":["x"]},"timeout_s":"5"}`, "", "timeout_s"},
		{"not an object", `["exec"]`, "", "-"},
		{"malformed", `{"exec":`, "", "exec"},
		{"trailing data", `{"exec":{"command":["x"]}} {}`, "", "-"},
		{"trailing closing brace", `{"task":{}}}`, "", "-"},
		{"trailing closing bracket", `{"build":{}}]`, "", "-"},
		{"trailing whitespace", "{\"build\":{}} \n\t", KindBuild, ""},
		{"timeout negative exec", `{"exec":{"command":["x"]},"timeout_s":-1}`, "", "timeout_s"},
		{"timeout too long task", `{"task":{"dir":"/t"},"timeout_s":604801}`, "", "timeout_s"},
		{"timeout too long generate", `{"generate":{"dir":"/t"},"timeout_s":1e9}`, "", "timeout_s"},
		{"timeout negative build", `{"build":{},"timeout_s":-0.5}`, "", "timeout_s"},
		{"member name in another case", `{"EXEC":{"command":["x"]}}`, "", "EXEC"},
		{"common name in another case", `{"exec":{"command":["x"]},"Timeout_S":5}`, "", "Timeout_S"},
		{"deeply nested wrong type", `{"exec":{"command":["x"],"env":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}}`, "", "exec.env"},
		{"deeply nested unknown", `{"exec":{"command":["x"],"bogus":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}}`, "", "exec.bogus"},
		{"timeout at bound", `{"build":{},"timeout_s":604800}`, KindBuild, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, err := DecodeRunRequest([]byte(c.body))
			if c.field == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if k, err := req.Kind(); err != nil || k != c.kind {
					t.Fatalf("kind %q, %v; want %q", k, err, c.kind)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("got %v (%T), want a *FieldError", err, err)
			}
			want := c.field
			if want == "-" {
				want = ""
			}
			if fe.Field != want {
				t.Fatalf("field %q (%v), want %q", fe.Field, err, want)
			}
		})
	}
}

// TestDecodeRunRequestRoundTrip: what a client encodes decodes to the
// same request, for every kind.
func TestDecodeRunRequestRoundTrip(t *testing.T) {
	uid := uint32(1000)
	for _, req := range []RunRequest{
		{Exec: &ExecRequest{Command: []string{"/bin/sh", "-c", "true"}, Env: []string{"A=1"}, UID: &uid,
			Policy: json.RawMessage(`{"read":["/**"]}`), Trace: true, WaitTree: true}, Common: Common{TimeoutSeconds: 2.5}},
		{Task: &TaskRequest{Dir: "/t", PolicySource: SourcePolicy, Agent: "oracle", Policy: json.RawMessage(`{"read":["/a"]}`),
			BaseMap: map[string]string{"python": "authbench-base"}, AgentAllowHosts: []string{"example.com:443"}}},
		{Generate: &GenerateRequest{Dir: "/t", Generator: "heuristic", TimeoutSeconds: 60}},
		{Build: &BuildRequest{Dir: "/t", BuildArgs: map[string]string{"V": "1"}}, Common: Common{TimeoutSeconds: 3600}},
	} {
		data, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeRunRequest(data)
		if err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		if !reflect.DeepEqual(*got, req) {
			t.Fatalf("%s decoded to %+v, want %+v", data, *got, req)
		}
	}
}

// TestKindsHaveMembers: every kind is a member field of RunRequest under
// its name, so that the union and the member table cannot drift.
func TestKindsHaveMembers(t *testing.T) {
	typ := reflect.TypeFor[RunRequest]()
	fields := jsonFields(typ)
	for _, k := range Kinds() {
		ft, ok := fields[string(k)]
		if !ok || ft.Kind() != reflect.Pointer {
			t.Errorf("kind %s has no pointer member in RunRequest", k)
		}
		var r RunRequest
		m, _ := memberOf(k)
		m.alloc(&r)
		if got, err := r.Kind(); err != nil || got != k {
			t.Errorf("a request with only member %s is kind %q, %v", k, got, err)
		}
	}
	if n := typ.NumField() - 1; n != len(Kinds()) { // Common is the one other field
		t.Errorf("RunRequest has %d members, the table %d", n, len(Kinds()))
	}
	if !strings.Contains(kindList(), "exec, task, generate, build") {
		t.Errorf("kinds listed as %q", kindList())
	}
}

// TestRunRequestOfAnEarlierRecord: a record written before the union
// (command fields at the top level, a task run's policy beside its task)
// reads as its one member; a union reads as it is.
func TestRunRequestOfAnEarlierRecord(t *testing.T) {
	for _, c := range []struct {
		name, record string
		want         RunRequest
	}{
		{"command", `{"command":["/bin/true"],"env":["A=1"],"trace":true,"timeout_s":3}`,
			RunRequest{Exec: &ExecRequest{Command: []string{"/bin/true"}, Env: []string{"A=1"}, Trace: true}, Common: Common{TimeoutSeconds: 3}}},
		{"task with policy", `{"command":null,"policy":{"read":["/a"]},"task":{"dir":"/t","policy_source":"policy","agent":"oracle"}}`,
			RunRequest{Task: &TaskRequest{Dir: "/t", PolicySource: SourcePolicy, Agent: "oracle", Policy: json.RawMessage(`{"read":["/a"]}`)}}},
		{"generation", `{"command":null,"generate":{"dir":"/t","generator":"spec"}}`,
			RunRequest{Generate: &GenerateRequest{Dir: "/t", Generator: "spec"}}},
		{"union", `{"exec":{"command":["x"]},"timeout_s":1}`,
			RunRequest{Exec: &ExecRequest{Command: []string{"x"}}, Common: Common{TimeoutSeconds: 1}}},
	} {
		var got Run
		if err := json.Unmarshal([]byte(`{"id":"r","request":`+c.record+`}`), &got); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !reflect.DeepEqual(got.Request, c.want) {
			t.Errorf("%s: read %+v, want %+v", c.name, got.Request, c.want)
		}
		if _, err := got.Request.Kind(); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// TestRunRequestSummary: `runs list` names every kind's run in one line.
func TestRunRequestSummary(t *testing.T) {
	for _, c := range []struct {
		req  RunRequest
		want string
	}{
		{RunRequest{Exec: &ExecRequest{Command: []string{"/bin/sh", "-c", "true"}}}, "/bin/sh -c true"},
		{RunRequest{Task: &TaskRequest{Dir: "/t", Agent: "oracle", PolicySource: SourceSpec}}, "task /t (oracle, spec)"},
		{RunRequest{Generate: &GenerateRequest{Dir: "/t", Generator: "heuristic"}}, "generate /t (heuristic)"},
		{RunRequest{Build: &BuildRequest{Dir: "/t"}}, "build /t"},
		{RunRequest{Build: &BuildRequest{}}, "build base authbench-base"},
		{RunRequest{}, ""},
	} {
		if got := c.req.Summary(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.req, got, c.want)
		}
	}
}

// FuzzDecodeRunRequest: any body is refused with a *FieldError or
// accepted as exactly one member with its common fields in range, an
// accepted request encodes to a body that decodes to the same request,
// and that encoding holds every value of the body (covers: no key was
// case-folded into another, given twice, or dropped).
func FuzzDecodeRunRequest(f *testing.F) {
	for _, seed := range []string{
		`{"exec":{"command":["/bin/true"]},"timeout_s":5}`,
		`{"task":{"dir":"/t","model":{"base_url":"http://x"}}}`,
		`{"generate":{"dir":"/t"},"build":{}}`,
		`{"exec":null,"build":{"base_map":{"a":"b"}}}`,
		`{"command":["x"]}`, `[]`, `{"exec":{"command":[`, `{} {}`,
		`{"exec":{"command":["x"],"Command":["y"]}}`, `{"task":{"model":{"model":"a","Model":"b"}}}`,
		`{"exec":{"command":["x"],"policy":{"read":[],"read":["/"]}}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := DecodeRunRequest(body)
		if err != nil {
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("%q: refused with %T %v, not a *FieldError", body, err, err)
			}
			return
		}
		if _, err := req.Kind(); err != nil {
			t.Fatalf("%q: accepted without one member: %v", body, err)
		}
		if err := req.Common.Check(); err != nil {
			t.Fatalf("%q: accepted out of range: %v", body, err)
		}
		data, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		again, err := DecodeRunRequest(data)
		if err != nil {
			t.Fatalf("%q re-encoded as %s is refused: %v", body, data, err)
		}
		if !reflect.DeepEqual(normalJSON(t, req), normalJSON(t, again)) {
			t.Fatalf("%q: %s decodes to %+v", body, data, again)
		}
		var doc any
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Fatalf("%q accepted but not JSON: %v", body, err)
		}
		if !covers(doc, normalJSON(t, req)) {
			t.Fatalf("%q accepted, but its request %s drops or changes a value of it", body, data)
		}
	})
}

// normalJSON is v as a generic JSON value (raw members compared by value).
func normalJSON(t *testing.T, v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
