package oracle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/authbench/authbench/policy"
)

// Style is the layout of a spec file, learnt from an existing one so
// that a rewritten spec differs from it only where its content does.
type Style struct {
	// Indent is one level of indentation.
	Indent string
	// InlineArrays puts each axis' list on one line.
	InlineArrays bool
	// Order is the order of the top-level fields.
	Order []string
}

// Spec field names, in the order a new file lists them.
var specFields = []string{"required_permissions", "scored_roots", "implicit_permissions", "sensitive_permissions"}

// DefaultStyle is the layout of the published specs: two spaces, one
// line per axis.
func DefaultStyle() Style {
	return Style{Indent: "  ", InlineArrays: true, Order: specFields}
}

// DetectStyle learns the layout of a spec document (DefaultStyle for
// what it cannot tell).
func DetectStyle(doc []byte) Style {
	st := DefaultStyle()
	lines := strings.Split(string(doc), "\n")
	for _, l := range lines {
		trimmed := strings.TrimLeft(l, " \t")
		if trimmed != "" && len(trimmed) < len(l) {
			st.Indent = l[:len(l)-len(trimmed)]
			break
		}
	}
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, `"read"`) || strings.HasPrefix(t, `"write"`) || strings.HasPrefix(t, `"execute"`) {
			st.InlineArrays = !strings.HasSuffix(t, "[")
			break
		}
	}
	type pos struct {
		name string
		at   int
	}
	var found []pos
	for _, f := range specFields {
		if i := bytes.Index(doc, []byte(`"`+f+`"`)); i >= 0 {
			found = append(found, pos{f, i})
		} else {
			found = append(found, pos{f, len(doc) + len(found)})
		}
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].at < found[j].at })
	st.Order = nil
	for _, p := range found {
		st.Order = append(st.Order, p.name)
	}
	return st
}

// FormatSpec writes spec in style st: fields in st.Order (the sensitive
// field only when the spec has one), axes read, write, execute, then
// network where the spec has that list.
func FormatSpec(spec *policy.Spec, st Style) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{\n")
	var fields []string
	for _, f := range st.Order {
		if f == "sensitive_permissions" && spec.Sensitive == nil {
			continue
		}
		fields = append(fields, f)
	}
	for i, f := range fields {
		fmt.Fprintf(&b, "%s%q: {\n", st.Indent, f)
		perms := specField(spec, f)
		network := specNetwork(spec, f)
		for j, ax := range policy.Axes {
			fmt.Fprintf(&b, "%s%s%q: ", st.Indent, st.Indent, ax.String())
			list := make([]string, len(perms.Get(ax)))
			for k, p := range perms.Get(ax) {
				list[k] = p.String()
			}
			if err := writeList(&b, list, st); err != nil {
				return nil, err
			}
			if j < len(policy.Axes)-1 || network != nil {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		if network != nil {
			fmt.Fprintf(&b, "%s%s%q: ", st.Indent, st.Indent, "network")
			if err := writeList(&b, policy.HostStrings(network), st); err != nil {
				return nil, err
			}
			b.WriteByte('\n')
		}
		b.WriteString(st.Indent + "}")
		if i < len(fields)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("}\n")
	return b.Bytes(), nil
}

func specField(spec *policy.Spec, name string) *policy.Permissions {
	switch name {
	case "required_permissions":
		return &spec.Required
	case "scored_roots":
		return &spec.ScoredRoots
	case "implicit_permissions":
		return &spec.Implicit
	}
	return spec.Sensitive
}

// specNetwork is the network list of the spec's field name (nil when
// the spec has none there; scored_roots never has one).
func specNetwork(spec *policy.Spec, name string) []policy.HostPattern {
	switch name {
	case "required_permissions":
		return spec.Network.Required
	case "implicit_permissions":
		return spec.Network.Implicit
	case "sensitive_permissions":
		return spec.Network.Sensitive
	}
	return nil
}

func writeList(b *bytes.Buffer, list []string, st Style) error {
	if len(list) == 0 {
		b.WriteString("[]")
		return nil
	}
	quoted := make([]string, len(list))
	for i, p := range list {
		var q bytes.Buffer
		enc := json.NewEncoder(&q)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(p); err != nil {
			return err
		}
		quoted[i] = strings.TrimSuffix(q.String(), "\n")
	}
	if st.InlineArrays {
		b.WriteString("[" + strings.Join(quoted, ", ") + "]")
		return nil
	}
	in := st.Indent + st.Indent + st.Indent
	b.WriteString("[\n" + in + strings.Join(quoted, ",\n"+in) + "\n" + st.Indent + st.Indent + "]")
	return nil
}

// patterns parses entries made by the recorder (always valid patterns).
func patterns(entries []string) ([]policy.Pattern, error) {
	out := make([]policy.Pattern, 0, len(entries))
	for _, e := range entries {
		p, err := policy.ParsePattern(e)
		if err != nil {
			return nil, fmt.Errorf("recorded entry %q: %w", e, err)
		}
		out = append(out, p)
	}
	return out, nil
}
