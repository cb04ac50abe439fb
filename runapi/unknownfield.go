package runapi

import (
	"encoding"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// unknownFieldPath is the dotted path, below a value of type t, of a
// field of the JSON document data that t has no field for ("model.foo",
// "base_map" never: a map takes any key); "" when there is none. The JSON
// package names only the unknown field's own name; this names where it
// is. It matches names as the JSON package does (case-insensitively).
func unknownFieldPath(data []byte, t reflect.Type) string {
	var doc any
	if json.Unmarshal(data, &doc) != nil {
		return ""
	}
	return unknownIn(doc, t)
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

func unknownIn(doc any, t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) {
		return "" // decodes itself (json.RawMessage, time.Time, ...)
	}
	switch v := doc.(type) {
	case map[string]any:
		return unknownInObject(v, t)
	case []any:
		if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
			return ""
		}
		for i, e := range v {
			if p := unknownIn(e, t.Elem()); p != "" {
				return "[" + strconv.Itoa(i) + "]" + dotted(p)
			}
		}
	}
	return ""
}

func unknownInObject(obj map[string]any, t reflect.Type) string {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	switch t.Kind() {
	case reflect.Map:
		for _, k := range keys {
			if p := unknownIn(obj[k], t.Elem()); p != "" {
				return k + dotted(p)
			}
		}
	case reflect.Struct:
		fields := jsonFields(t)
		for _, k := range keys {
			ft, ok := fieldNamed(fields, k)
			if !ok {
				return k
			}
			if p := unknownIn(obj[k], ft); p != "" {
				return k + dotted(p)
			}
		}
	}
	return ""
}

// dotted joins a sub-path to its parent: ".name", or "[i]" as is.
func dotted(p string) string {
	if strings.HasPrefix(p, "[") {
		return p
	}
	return "." + p
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

func fieldNamed(fields map[string]reflect.Type, key string) (reflect.Type, bool) {
	if t, ok := fields[key]; ok {
		return t, true
	}
	for name, t := range fields {
		if strings.EqualFold(name, key) {
			return t, true
		}
	}
	return nil, false
}
