package runapi

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
)

// RunRequest is the body of POST /v1/runs: a tagged union of the kinds
// of run, exactly one of Exec, Task, Generate and Build set (on the wire
// `{"exec": {...}}`, `{"task": {...}}`, ...), plus the fields common to
// every kind. DecodeRunRequest reads one strictly; Kind names its member.
type RunRequest struct {
	// Exec is a command run: see ExecRequest.
	Exec *ExecRequest `json:"exec,omitempty"`
	// Task is a task run: see TaskRequest.
	Task *TaskRequest `json:"task,omitempty"`
	// Generate is a permission generation: see GenerateRequest.
	Generate *GenerateRequest `json:"generate,omitempty"`
	// Build is an image build: see BuildRequest.
	Build *BuildRequest `json:"build,omitempty"`
	// Common are the fields every kind of run takes.
	Common
}

// Common are the fields of a RunRequest beside its one member, checked
// the same way whatever the kind (Common.Check).
type Common struct {
	// TimeoutSeconds ends the run (its tree killed, its task run or
	// generation cancelled) after that long; 0 means the daemon's
	// default for the kind (a command's: the daemon's default timeout;
	// a task run's, a generation's and a build's: their own timeouts).
	TimeoutSeconds float64 `json:"timeout_s,omitempty"`
}

// MaxTimeoutSeconds bounds Common.TimeoutSeconds (and a generator's own
// timeout): seven days.
const MaxTimeoutSeconds = 7 * 24 * 3600

// Kind names a kind of run: its member's name in a RunRequest.
type Kind string

// The kinds of run.
const (
	KindExec     Kind = "exec"
	KindTask     Kind = "task"
	KindGenerate Kind = "generate"
	KindBuild    Kind = "build"
)

// kindMember is one member of the union: its kind, whether a request has
// it, and a fresh zero member set on a request (for decoding into).
type kindMember struct {
	kind  Kind
	isSet func(r *RunRequest) bool
	alloc func(r *RunRequest) any
}

// members lists the union's members in the order the API documents them;
// a fifth kind is one more entry (and its field).
var members = []kindMember{
	{KindExec, func(r *RunRequest) bool { return r.Exec != nil },
		func(r *RunRequest) any { r.Exec = new(ExecRequest); return r.Exec }},
	{KindTask, func(r *RunRequest) bool { return r.Task != nil },
		func(r *RunRequest) any { r.Task = new(TaskRequest); return r.Task }},
	{KindGenerate, func(r *RunRequest) bool { return r.Generate != nil },
		func(r *RunRequest) any { r.Generate = new(GenerateRequest); return r.Generate }},
	{KindBuild, func(r *RunRequest) bool { return r.Build != nil },
		func(r *RunRequest) any { r.Build = new(BuildRequest); return r.Build }},
}

// Kinds lists every kind of run.
func Kinds() []Kind {
	out := make([]Kind, len(members))
	for i, m := range members {
		out[i] = m.kind
	}
	return out
}

func memberOf(kind Kind) (kindMember, bool) {
	for _, m := range members {
		if m.kind == kind {
			return m, true
		}
	}
	return kindMember{}, false
}

// FieldError is a request that cannot be carried out as given: Field
// names the offending field ("task.agent", "env[3]"; "" for the request
// as a whole) and Msg says why.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

func fieldError(field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Kind is the kind of r, the name of its one member. A request with no
// member or with two is a *FieldError (naming the second member).
func (r *RunRequest) Kind() (Kind, error) {
	var kind Kind
	for _, m := range members {
		if !m.isSet(r) {
			continue
		}
		if kind != "" {
			return "", fieldError(string(m.kind), "a request is one kind of run, and %s is given too", kind)
		}
		kind = m.kind
	}
	if kind == "" {
		return "", fieldError("", "the request names no kind of run: give exactly one of %s", kindList())
	}
	return kind, nil
}

func kindList() string {
	names := make([]string, len(members))
	for i, m := range members {
		names[i] = string(m.kind)
	}
	return strings.Join(names, ", ")
}

// Check checks the common fields (the same bounds for every kind).
func (c Common) Check() error {
	if t := c.TimeoutSeconds; math.IsNaN(t) || t < 0 || t > MaxTimeoutSeconds {
		return fieldError("timeout_s", "must be between 0 (the default) and %d seconds, got %v", MaxTimeoutSeconds, t)
	}
	return nil
}

// DecodeRunRequest reads a POST /v1/runs body strictly: one JSON object
// with exactly one kind member and the common fields, no unknown field
// (in the request or in its member), no field twice, nothing after it;
// the common fields checked. Every refusal is a *FieldError naming the
// field ("exec.comand", "task", "timeout_s"). Pure.
func DecodeRunRequest(body []byte) (*RunRequest, error) {
	fields, err := objectFields(body)
	if err != nil {
		return nil, err
	}
	req := &RunRequest{}
	common := map[string]json.RawMessage{}
	for _, f := range fields {
		m, ok := memberOf(Kind(f.name))
		switch {
		case !ok && !commonFields[f.name]:
			return nil, fieldError(f.name, "unknown field (the request takes one of the members %s and %s)", kindList(), commonList())
		case !ok:
			common[f.name] = f.value
		case isJSONNull(f.value):
			// an absent member
		default:
			if err := decodeStrict(f.value, m.alloc(req), f.name); err != nil {
				return nil, err
			}
		}
	}
	data, err := json.Marshal(common)
	if err != nil {
		return nil, fmt.Errorf("decode run request: %w", err)
	}
	if err := decodeStrict(data, &req.Common, ""); err != nil {
		return nil, err
	}
	if _, err := req.Kind(); err != nil {
		return nil, err
	}
	if err := req.Common.Check(); err != nil {
		return nil, err
	}
	return req, nil
}

// commonFields are the JSON names of Common's fields, matched exactly
// (not case-insensitively, as the JSON package would).
var commonFields = func() map[string]bool {
	out := map[string]bool{}
	for name := range jsonFields(reflect.TypeFor[Common]()) {
		out[name] = true
	}
	return out
}()

func commonList() string {
	names := make([]string, 0, len(commonFields))
	for name := range commonFields {
		names = append(names, name)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// objectField is one name and value of a JSON object, in order.
type objectField struct {
	name  string
	value json.RawMessage
}

// objectFields splits body, which must be one JSON object and nothing
// more, into its fields; a name given twice is refused.
func objectFields(body []byte) ([]objectField, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil {
		return nil, fieldError("", "malformed JSON: %v", err)
	} else if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fieldError("", "the request must be a JSON object")
	}
	var fields []objectField
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fieldError("", "malformed JSON: %v", err)
		}
		name, _ := tok.(string) // object keys are strings
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, fieldError(name, "malformed JSON: %v", err)
		}
		if seen[name] {
			return nil, fieldError(name, "given twice")
		}
		seen[name] = true
		fields = append(fields, objectField{name, value})
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, fieldError("", "malformed JSON: %v", err)
	}
	if len(bytes.TrimLeft(body[dec.InputOffset():], " \t\r\n")) != 0 {
		// (a stray closing bracket is an error to Token, not a token)
		return nil, fieldError("", "extra data after the request object")
	}
	return fields, nil
}

// decodeStrict decodes data into v with exact field names: no unknown
// field, none matched case-insensitively, no key given twice at any
// depth (checkExact); a field's name in an error is prefixed with prefix
// (the member's name).
func decodeStrict(data []byte, v any, prefix string) error {
	if err := checkExact(data, reflect.TypeOf(v), prefix); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonFieldError(err, prefix)
	}
	return nil
}

// jsonFieldError turns a decoding error into a *FieldError naming the
// field where the JSON package knows it (unknown fields and keys given
// twice are refused before, by checkExact, with their full path).
func jsonFieldError(err error, prefix string) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fieldError(joinField(prefix, te.Field), "must be %s, not %s", te.Type.String(), te.Value)
	}
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return fieldError(joinField(prefix, strings.Trim(rest, `"`)), "unknown field")
	}
	return fieldError(prefix, "malformed JSON: %s", msg)
}

func joinField(prefix, field string) string {
	switch {
	case prefix == "":
		return field
	case field == "":
		return prefix
	}
	return prefix + "." + field
}

func isJSONNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

// Summary is the request in one line, for a list of runs: a command's
// argv, or the kind and what it is about (a task run's directory and
// agent, a generation's directory and generator, a build's directory or
// base family).
func (r *RunRequest) Summary() string {
	switch {
	case r.Exec != nil:
		return strings.Join(r.Exec.Command, " ")
	case r.Task != nil:
		return fmt.Sprintf("task %s (%s, %s)", r.Task.Dir, r.Task.Agent, r.Task.PolicySource)
	case r.Generate != nil:
		return fmt.Sprintf("generate %s (%s)", r.Generate.Dir, r.Generate.Generator)
	case r.Build != nil && r.Build.Dir != "":
		return "build " + r.Build.Dir
	case r.Build != nil:
		return "build base " + cmp.Or(r.Build.Family, "authbench-base")
	}
	return ""
}
