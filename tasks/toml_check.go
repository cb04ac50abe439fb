package tasks

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// checker reads typed values out of a tomlDoc, reporting each value of the
// wrong type as a problem at its line and carrying on.
type checker struct {
	doc *tomlDoc
	ps  problems
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

// kindOf names the TOML type of a decoded value for messages.
func kindOf(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	case time.Time:
		return "a date-time"
	}
	return fmt.Sprintf("a date or time (%T)", v)
}

func (c *checker) wrongType(path, want string, v any) {
	c.ps.add(c.doc.line(path), path, "must be %s, got %s", want, kindOf(v))
}

// table returns the sub-table key of tbl; nil when absent or wrong.
func (c *checker) table(tbl map[string]any, prefix, key string) map[string]any {
	v, ok := tbl[key]
	if !ok {
		return nil
	}
	t, ok := v.(map[string]any)
	if !ok {
		c.wrongType(join(prefix, key), "a table", v)
		return nil
	}
	return t
}

func (c *checker) str(tbl map[string]any, prefix, key string) (string, bool) {
	v, ok := tbl[key]
	if !ok {
		return "", false
	}
	s, ok := v.(string)
	if !ok {
		c.wrongType(join(prefix, key), "a string", v)
		return "", false
	}
	return s, true
}

func (c *checker) boolean(tbl map[string]any, prefix, key string) (bool, bool) {
	v, ok := tbl[key]
	if !ok {
		return false, false
	}
	b, ok := v.(bool)
	if !ok {
		c.wrongType(join(prefix, key), "a boolean (true or false)", v)
		return false, false
	}
	return b, true
}

// positive reads a number (integer or float) that must be > 0.
func (c *checker) positive(tbl map[string]any, prefix, key string) (float64, bool) {
	v, ok := tbl[key]
	if !ok {
		return 0, false
	}
	path := join(prefix, key)
	var f float64
	switch n := v.(type) {
	case int64:
		f = float64(n)
	case float64:
		f = n
	default:
		c.wrongType(path, "a number", v)
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) || f <= 0 {
		c.ps.add(c.doc.line(path), path, "must be a positive number, got %v", v)
		return 0, false
	}
	return f, true
}

// count reads a non-negative integer.
func (c *checker) count(tbl map[string]any, prefix, key string) (int64, bool) {
	v, ok := tbl[key]
	if !ok {
		return 0, false
	}
	path := join(prefix, key)
	n, ok := v.(int64)
	if !ok {
		c.wrongType(path, "an integer", v)
		return 0, false
	}
	if n < 0 {
		c.ps.add(c.doc.line(path), path, "must not be negative, got %d", n)
		return 0, false
	}
	return n, true
}

func (c *checker) strList(tbl map[string]any, prefix, key string) []string {
	v, ok := tbl[key]
	if !ok {
		return nil
	}
	path := join(prefix, key)
	arr, ok := v.([]any)
	if !ok {
		c.wrongType(path, "an array of strings", v)
		return nil
	}
	out := make([]string, 0, len(arr))
	for i, e := range arr {
		s, ok := e.(string)
		if !ok {
			c.wrongType(fmt.Sprintf("%s[%d]", path, i), "a string", e)
			continue
		}
		out = append(out, s)
	}
	return out
}

func (c *checker) strMap(tbl map[string]any, prefix, key string) map[string]string {
	t := c.table(tbl, prefix, key)
	if t == nil {
		return nil
	}
	path := join(prefix, key)
	out := make(map[string]string, len(t))
	for _, k := range sortedKeys(t) {
		switch v := t[k].(type) {
		case string:
			out[k] = v
		case int64, float64, bool:
			out[k] = fmt.Sprint(v)
		default:
			c.wrongType(join(path, k), "a string", v)
		}
	}
	return out
}

// unknown warns about keys of tbl that are not in known: Harbor ignores
// keys it does not know, and so do we, but a typo deserves a word.
func (c *checker) unknown(tbl map[string]any, prefix string, known ...string) {
	for _, k := range sortedKeys(tbl) {
		if contains(known, k) {
			continue
		}
		path := join(prefix, k)
		c.ps.warn(c.doc.line(path), path, "unknown key, ignored (known: %s)", strings.Join(known, ", "))
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
