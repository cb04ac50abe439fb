package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"unicode/utf8"
)

// Limits on documents, so that hostile input costs bounded memory.
const (
	MaxDocumentBytes = 8 << 20
	MaxListEntries   = 10000
)

// Spec field names as they appear in permission_eval_spec.json.
const (
	fieldRequired  = "required_permissions"
	fieldRoots     = "scored_roots"
	fieldImplicit  = "implicit_permissions"
	fieldSensitive = "sensitive_permissions"
	fieldNetwork   = "network"
)

// LoadPolicy reads and validates the policy file name. A file that can't
// be read gives a plain error; an invalid policy a *ValidationError.
func LoadPolicy(name string) (*Policy, error) { return LoadPolicyFor(name, nil) }

// LoadPolicyFor is LoadPolicy for a policy of the task whose spec is
// spec: see ParsePolicyFor.
func LoadPolicyFor(name string, spec *Spec) (*Policy, error) {
	data, err := readDocument(name)
	if err != nil {
		return nil, fmt.Errorf("load policy %s: %w", name, err)
	}
	return ParsePolicyFor(data, name, spec)
}

// LoadSpec reads and validates the spec file name, like LoadPolicy.
func LoadSpec(name string) (*Spec, error) {
	data, err := readDocument(name)
	if err != nil {
		return nil, fmt.Errorf("load spec %s: %w", name, err)
	}
	return ParseSpec(data, name)
}

func readDocument(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxDocumentBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxDocumentBytes {
		return nil, fmt.Errorf("larger than %d bytes", MaxDocumentBytes)
	}
	return data, nil
}

// ParsePolicy parses a policy document in the published format: a JSON
// object with exactly the keys read, write and execute, each an array of
// absolute path patterns.
func ParsePolicy(data []byte, source string) (*Policy, error) {
	return ParsePolicyFor(data, source, nil)
}

// ParsePolicyFor parses a policy of the task whose spec is spec. When
// the spec declares the network axis (NetworkSpec.Declared) the policy
// may also have the key network, an array of "host:port" patterns
// (ParseHostPattern); otherwise (spec nil, or a spec in the published
// format) it is an unknown key, as in ParsePolicy.
func ParsePolicyFor(data []byte, source string, spec *Spec) (*Policy, error) {
	var ps problems
	obj := decodeObject(data, &ps)
	pol := &Policy{Source: source}
	if obj != nil {
		network := spec != nil && spec.Network.Declared
		pol.Permissions, pol.Network = parsePermissions(obj, "", false, network, &ps)
	}
	if err := ps.err(source); err != nil {
		return nil, err
	}
	return pol, nil
}

// ParseSpec parses a permission_eval_spec document.
func ParseSpec(data []byte, source string) (*Spec, error) {
	var ps problems
	obj := decodeObject(data, &ps)
	if obj == nil {
		return nil, ps.err(source)
	}
	spec := &Spec{Source: source}
	known := []string{fieldRequired, fieldRoots, fieldImplicit, fieldSensitive}
	checkKeys(obj, "", known, []string{fieldRequired, fieldRoots, fieldImplicit}, &ps)
	sub := func(name string, exactOnly bool) (Permissions, []HostPattern, bool) {
		raw, ok := obj[name]
		if !ok {
			return Permissions{}, nil, false
		}
		inner := asObject(raw, name, &ps)
		if inner == nil {
			return Permissions{}, nil, true
		}
		perms, network := parsePermissions(inner, name, exactOnly, true, &ps)
		return perms, network, true
	}
	spec.Required, spec.Network.Required, _ = sub(fieldRequired, false)
	var rootsNetwork []HostPattern
	spec.ScoredRoots, rootsNetwork, _ = sub(fieldRoots, true)
	if rootsNetwork != nil {
		ps.add(joinField(fieldRoots, fieldNetwork), "the network axis has no scored roots (its universe is the spec's own network entries)")
	}
	spec.Implicit, spec.Network.Implicit, _ = sub(fieldImplicit, false)
	if sens, network, ok := sub(fieldSensitive, false); ok {
		spec.Sensitive = &sens
		spec.Network.Sensitive = network
	}
	spec.Network.Declared = spec.Network.Required != nil || spec.Network.Implicit != nil || spec.Network.Sensitive != nil
	if err := ps.err(source); err != nil {
		return nil, err
	}
	return spec, nil
}

// decodeObject decodes a whole document that must be one JSON object.
func decodeObject(data []byte, ps *problems) map[string]json.RawMessage {
	if !utf8.Valid(data) {
		ps.add("", "not valid UTF-8 text")
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		ps.add("", "not valid JSON: %v", err)
		return nil
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		ps.add("", "not valid JSON: extra data after the top-level value")
		return nil
	}
	return asObject(raw, "", ps)
}

func asObject(raw json.RawMessage, field string, ps *problems) map[string]json.RawMessage {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		ps.add(field, "must be a JSON object, got %s", jsonKind(raw))
		return nil
	}
	return obj
}

func jsonKind(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// checkKeys reports unknown keys and missing required ones, sorted so the
// message is stable.
func checkKeys(obj map[string]json.RawMessage, field string, known, required []string, ps *problems) {
	var unknown []string
	for k := range obj {
		if !contains(known, k) {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		ps.add(joinField(field, k), "unknown key (allowed: %s)", strings.Join(known, ", "))
	}
	for _, k := range required {
		if _, ok := obj[k]; !ok {
			ps.add(joinField(field, k), "missing")
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// parsePermissions checks an object with exactly the keys read, write,
// execute, and optionally network when network is true, and parses each
// list. The network list is nil when the key is absent and non-nil
// (maybe empty) when it is present.
func parsePermissions(obj map[string]json.RawMessage, field string, exactOnly, network bool, ps *problems) (Permissions, []HostPattern) {
	names := make([]string, len(Axes))
	for i, a := range Axes {
		names[i] = a.String()
	}
	known := obj
	if network {
		known = make(map[string]json.RawMessage, len(obj))
		for k, v := range obj {
			if k != fieldNetwork {
				known[k] = v
			}
		}
	}
	checkKeys(known, field, names, names, ps)
	var perms Permissions
	for _, a := range Axes {
		if raw, ok := obj[a.String()]; ok {
			perms[a] = parseList(raw, joinField(field, a.String()), exactOnly, ps)
		}
	}
	var hosts []HostPattern
	if raw, ok := obj[fieldNetwork]; ok && network {
		hosts = parseHostList(raw, joinField(field, fieldNetwork), ps)
	}
	return perms, hosts
}

// parseHostList parses a network list: an array of "host:port" strings
// (ParseHostPattern), no duplicates after normalisation. A list that is
// not an array is reported and taken as empty (the key stays present).
func parseHostList(raw json.RawMessage, field string, ps *problems) []HostPattern {
	out := parseStrings(raw, field, "host:port", ParseHostPattern, ps)
	if out == nil {
		out = []HostPattern{}
	}
	return out
}

func parseList(raw json.RawMessage, field string, exactOnly bool, ps *problems) []Pattern {
	return parseStrings(raw, field, "path", func(s string) (Pattern, error) {
		p, err := ParsePattern(s)
		if err == nil && exactOnly && (p.HasGlob() || p.Recursive()) {
			return Pattern{}, fmt.Errorf("%q must be an exact path (no *, ?, [ or /**)", s)
		}
		return p, err
	}, ps)
}

// parseStrings parses a JSON array of at most MaxListEntries strings,
// each with parse, reporting every bad entry at its index and entries
// that duplicate an earlier one after normalisation (their String); nil
// when raw is not an array.
func parseStrings[T fmt.Stringer](raw json.RawMessage, field, kind string, parse func(string) (T, error), ps *problems) []T {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || items == nil {
		ps.add(field, "must be an array of %s strings, got %s", kind, jsonKind(raw))
		return nil
	}
	if len(items) > MaxListEntries {
		ps.add(field, "has %d entries (at most %d)", len(items), MaxListEntries)
		return nil
	}
	out := make([]T, 0, len(items))
	seen := make(map[string]int, len(items))
	for i, item := range items {
		at := fmt.Sprintf("%s[%d]", field, i)
		var s string
		if err := json.Unmarshal(item, &s); err != nil {
			ps.add(at, "must be a string, got %s", jsonKind(item))
			continue
		}
		p, err := parse(s)
		if err != nil {
			ps.add(at, "%v", err)
			continue
		}
		key := p.String()
		if first, dup := seen[key]; dup {
			ps.add(at, "%q duplicates %s[%d] after normalisation (%s)", s, field, first, key)
			continue
		}
		seen[key] = i
		out = append(out, p)
	}
	return out
}

func withinAnyRoot(p string, roots []Pattern) bool {
	for _, r := range roots {
		if isWithin(p, r.Base()) {
			return true
		}
	}
	return false
}

// isWithin reports whether clean absolute path p is root or below it.
func isWithin(p, root string) bool {
	if root == "/" {
		return true
	}
	return p == root || strings.HasPrefix(p, root+"/")
}
