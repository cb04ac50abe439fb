package formats

import (
	"bytes"
	"fmt"
	"path"
	"strings"

	"github.com/coreos/go-systemd/v22/unit"

	"github.com/authbench/authbench/policy"
)

// importSystemd reads the file-system and network settings of a unit's
// [Service] section (or a drop-in): ProtectSystem=, ReadWritePaths=,
// BindPaths=, BindReadOnlyPaths=, ExecPaths=, NoExecPaths=,
// InaccessiblePaths=, ProtectHome=, PrivateNetwork=.
func importSystemd(data []byte) (*builder, error) {
	opts, err := unit.DeserializeOptions(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("not a systemd unit: %w", err)
	}
	set := map[string][]string{}
	for _, o := range opts {
		if o.Section != "Service" {
			continue
		}
		if o.Value == "" { // an empty assignment resets the list
			delete(set, o.Name)
			continue
		}
		set[o.Name] = append(set[o.Name], splitPaths(o.Value)...)
	}
	b := &builder{}
	b.add(policy.Read, "/**")
	b.warn("read", "", Same, "systemd does not limit reading but by InaccessiblePaths= and ProtectHome=: read is /**")
	for _, p := range append(set["InaccessiblePaths"], set["ProtectHome"]...) {
		if p != "no" && p != "false" {
			b.warn("read", p, Wider, "a path made inaccessible cannot be expressed in an allowlist: dropped")
		}
	}
	b.systemdWrites(set)
	b.systemdExec(set)
	if last(set["PrivateNetwork"]) != "yes" && last(set["PrivateNetwork"]) != "true" {
		b.network = append(b.network, "*:*")
	}
	return b, nil
}

func (b *builder) systemdWrites(set map[string][]string) {
	switch last(set["ProtectSystem"]) {
	case "strict":
		for _, key := range []string{"ReadWritePaths", "BindPaths"} {
			for _, p := range set[key] {
				b.systemdPath(policy.Write, key, p)
			}
		}
	case "", "no", "false":
		b.add(policy.Write, "/**")
		b.warn("write", "ProtectSystem", Same, "no ProtectSystem=strict: the unit may write anywhere its user may: write is /**")
	default:
		b.add(policy.Write, "/**")
		b.warn("write", "ProtectSystem="+last(set["ProtectSystem"]), Wider, "only /usr, /boot (and /etc) are read-only: write is /**")
	}
}

func (b *builder) systemdExec(set map[string][]string) {
	noexec := set["NoExecPaths"]
	if len(noexec) == 0 {
		b.add(policy.Execute, "/**")
		return
	}
	for _, p := range noexec {
		if strings.TrimLeft(p, "-+") != "/" {
			b.warn("execute", p, Wider, "a NoExecPaths= other than / cannot be expressed in an allowlist: dropped")
		}
	}
	for _, p := range set["ExecPaths"] {
		b.systemdPath(policy.Execute, "ExecPaths", p)
	}
}

// systemdPath adds a path of a path list (with its "-" and "+" prefixes,
// BindPaths='s "SOURCE:DEST:OPTIONS") as everything below it.
func (b *builder) systemdPath(a policy.Axis, key, p string) {
	p = strings.TrimLeft(p, "-+")
	if key == "BindPaths" {
		parts := strings.Split(p, ":")
		p = parts[0]
		if len(parts) > 1 && parts[1] != "" {
			p = parts[1]
		}
	}
	if strings.Contains(p, "%") || !path.IsAbs(p) {
		b.warn(a.String(), key+"="+p, Narrower, "a path with a specifier or not absolute: left out")
		return
	}
	b.add(a, path.Join(p, "**"))
}

// splitPaths splits a space-separated list, honouring double quotes.
func splitPaths(v string) []string {
	var out []string
	var cur strings.Builder
	quoted, any := false, false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '\\' && i+1 < len(v):
			i++
			cur.WriteByte(v[i])
			any = true
		case c == '"':
			quoted, any = !quoted, true
		case (c == ' ' || c == '\t') && !quoted:
			if any {
				out = append(out, cur.String())
			}
			cur.Reset()
			any = false
		default:
			cur.WriteByte(c)
			any = true
		}
	}
	if any {
		out = append(out, cur.String())
	}
	return out
}

func last(list []string) string {
	if len(list) == 0 {
		return ""
	}
	return list[len(list)-1]
}
