package tasks

import (
	"errors"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// tomlDoc is a decoded TOML document plus the line of every key, so that
// type errors found after decoding still point at a line.
type tomlDoc struct {
	root  map[string]any
	lines map[string]int // dotted key path → 1-based line
}

// syntaxError is a TOML document that does not parse.
type syntaxError struct {
	line int
	msg  string
}

func (e *syntaxError) Error() string { return e.msg }

// parseTOML decodes data. A syntax error (including a duplicate key)
// comes back as a *syntaxError with its line.
func parseTOML(data []byte) (*tomlDoc, error) {
	var root map[string]any
	if err := toml.Unmarshal(data, &root); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, _ := de.Position()
			return nil, &syntaxError{line: line, msg: "not valid TOML: " + de.Error()}
		}
		return nil, &syntaxError{msg: "not valid TOML: " + err.Error()}
	}
	if root == nil {
		root = map[string]any{}
	}
	return &tomlDoc{root: root, lines: keyLines(data)}, nil
}

// keyLines maps each key path of a document that parses to the line where
// the key is written. Keys of array tables ([[x]]) share one path.
func keyLines(data []byte) map[string]int {
	lines := map[string]int{}
	p := &unstable.Parser{}
	p.Reset(data)
	var table []string
	for p.NextExpression() {
		n := p.Expression()
		switch n.Kind {
		case unstable.Table, unstable.ArrayTable:
			parts, line := keyParts(p, n)
			table = parts
			setLine(lines, table, line)
		case unstable.KeyValue:
			indexKeyValue(p, n, table, lines)
		}
	}
	return lines
}

func indexKeyValue(p *unstable.Parser, n *unstable.Node, prefix []string, lines map[string]int) {
	parts, line := keyParts(p, n)
	path := append(append([]string{}, prefix...), parts...)
	setLine(lines, path, line)
	v := n.Value()
	if v == nil || v.Kind != unstable.InlineTable {
		return
	}
	for it := v.Children(); it.Next(); {
		if c := it.Node(); c.Kind == unstable.KeyValue {
			indexKeyValue(p, c, path, lines)
		}
	}
}

func keyParts(p *unstable.Parser, n *unstable.Node) ([]string, int) {
	var parts []string
	line := 0
	for it := n.Key(); it.Next(); {
		k := it.Node()
		if line == 0 && k.Raw.Length > 0 {
			line = p.Shape(k.Raw).Start.Line
		}
		parts = append(parts, string(k.Data))
	}
	return parts, line
}

func setLine(lines map[string]int, path []string, line int) {
	key := strings.Join(path, ".")
	if _, ok := lines[key]; !ok && line > 0 {
		lines[key] = line
	}
}

// line returns the line of the key at path, or of its nearest ancestor
// that has one, or 0.
func (d *tomlDoc) line(path string) int {
	if i := strings.IndexByte(path, '['); i >= 0 {
		path = path[:i] // array elements share their key's line
	}
	for path != "" {
		if l, ok := d.lines[path]; ok {
			return l
		}
		i := strings.LastIndexByte(path, '.')
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return 0
}
