package runapi

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
)

// checkExact walks the JSON document data as a value of type t takes it
// and refuses, as a *FieldError naming the full path below prefix
// ("task.model.Model", "exec.env"), what the JSON package would let
// through silently: a field name that is not exactly one of t's (it
// matches names case-insensitively, so that "Command" would set command)
// and a key given twice in any object, at any depth (it keeps the last).
// A value that decodes itself (json.RawMessage: a policy, a seccomp
// profile) is checked for keys given twice only. Malformed JSON is left
// to the decoder, which names it; so is a value of the wrong type.
func checkExact(data []byte, t reflect.Type, prefix string) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	err := walkValue(dec, t, prefix, 0)
	if errors.Is(err, errMalformed) {
		return nil
	}
	return err
}

// maxDepth bounds the nesting of a request's JSON (the JSON package's
// own bound), so that a body of brackets cannot grow the walk's stack.
const maxDepth = 10000

// errMalformed stops a walk at malformed JSON (decoding reports it).
var errMalformed = errors.New("malformed JSON")

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// schemaOf is t without its pointers, or nil when t is nil, an
// interface, or decodes itself: then any field name goes.
func schemaOf(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() == reflect.Interface ||
		reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) {
		return nil
	}
	return t
}

// walkValue reads one value from dec, checking it as a value of type t
// (nil: any) at path, depth levels down.
func walkValue(dec *json.Decoder, t reflect.Type, path string, depth int) error {
	tok, err := dec.Token()
	if err != nil {
		return errMalformed
	}
	if depth >= maxDepth {
		return fieldError(path, "nested deeper than %d levels", maxDepth)
	}
	d, ok := tok.(json.Delim)
	switch {
	case !ok:
		return nil // a scalar
	case d == '{':
		return walkObject(dec, schemaOf(t), path, depth+1)
	case d == '[':
		return walkArray(dec, schemaOf(t), path, depth+1)
	}
	return errMalformed
}

func walkArray(dec *json.Decoder, t reflect.Type, path string, depth int) error {
	var elem reflect.Type
	if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		elem = t.Elem()
	}
	for i := 0; dec.More(); i++ {
		if err := walkValue(dec, elem, path+"["+strconv.Itoa(i)+"]", depth); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // ']'
		return errMalformed
	}
	return nil
}

func walkObject(dec *json.Decoder, t reflect.Type, path string, depth int) error {
	var fields map[string]reflect.Type
	var elem reflect.Type
	switch {
	case t != nil && t.Kind() == reflect.Struct:
		fields = jsonFields(t)
	case t != nil && t.Kind() == reflect.Map:
		elem = t.Elem()
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return errMalformed
		}
		key, _ := tok.(string) // object keys are strings
		at := joinField(path, key)
		if seen[key] {
			return fieldError(at, "given twice")
		}
		seen[key] = true
		ft := elem
		if fields != nil {
			var ok bool
			if ft, ok = fields[key]; !ok {
				return unknownField(at, key, fields)
			}
		}
		if err := walkValue(dec, ft, at, depth); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // '}'
		return errMalformed
	}
	return nil
}

// unknownField refuses key at, saying so when it differs from a field's
// name only in case (which the JSON package would have taken).
func unknownField(at, key string, fields map[string]reflect.Type) error {
	for name := range fields {
		if strings.EqualFold(name, key) {
			return fieldError(at, "unknown field (field names are exact)")
		}
	}
	return fieldError(at, "unknown field")
}

// jsonFields maps the JSON names of t's fields (those of embedded
// structs included) to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			for k, v := range jsonFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}
