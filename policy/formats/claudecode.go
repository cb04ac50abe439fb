package formats

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/authbench/authbench/policy"
)

// claudeSettings is the part of Claude Code's settings.json that holds
// permission rules.
type claudeSettings struct {
	Permissions claudePermissions `json:"permissions"`
}

type claudePermissions struct {
	Allow []string `json:"allow"`
	Deny  []string `json:"deny"`
	Ask   []string `json:"ask,omitempty"`
}

// claudeAbs writes an absolute path in Claude Code's rule syntax, where
// "//" starts a path from the file system's root ("/x" is relative to the
// settings file).
func claudeAbs(p string) string { return "/" + p }

// exportClaudeCode writes Claude Code permission rules: Read(//P) for read
// entries, Edit(//P) for write entries, Bash(P:*) for exact execute
// entries and WebFetch(domain:H) for network entries.
func exportClaudeCode(pol *policy.Policy) (*Exported, error) {
	out := &Exported{}
	s := claudeSettings{Permissions: claudePermissions{Allow: []string{}, Deny: []string{}}}
	for _, p := range pol.Get(policy.Read) {
		s.Permissions.Allow = append(s.Permissions.Allow, "Read("+claudeAbs(p.String())+")")
	}
	for _, p := range pol.Get(policy.Write) {
		s.Permissions.Allow = append(s.Permissions.Allow, "Edit("+claudeAbs(p.String())+")")
	}
	for _, p := range pol.Get(policy.Execute) {
		if !p.IsExact() {
			out.Warnings = append(out.Warnings, Warning{Axis: "execute", Entry: p.String(), Effect: Narrower,
				Message: "Claude Code's Bash rules match a command's text, not the files a glob names: left out"})
			continue
		}
		s.Permissions.Allow = append(s.Permissions.Allow, "Bash("+p.String()+":*)")
	}
	if len(pol.Get(policy.Execute)) > 0 {
		out.Warnings = append(out.Warnings, Warning{Axis: "execute", Effect: Narrower,
			Message: "Bash(P:*) matches commands whose text starts with the program's path: the program run by its name (git, not /usr/bin/git) asks again"})
	}
	seen := map[string]bool{}
	for _, h := range pol.Network {
		rule := "WebFetch(domain:" + h.Host() + ")"
		if h.Host() == "*" {
			rule = "WebFetch"
		}
		if !seen[rule] {
			seen[rule] = true
			s.Permissions.Allow = append(s.Permissions.Allow, rule)
		}
		if h.Port() != 443 {
			out.Warnings = append(out.Warnings, Warning{Axis: "network", Entry: h.String(), Effect: Same,
				Message: "WebFetch rules name domains, not ports: the port is dropped"})
		}
	}
	out.Warnings = append(out.Warnings, Warning{Effect: Wider,
		Message: "Claude Code applies Read and Edit rules to its own file tools: programs its Bash tool runs are not confined by them (use its sandbox, or bwrap/landrun, for that); what no rule allows it asks about"})
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	out.Text = string(data) + "\n"
	return out, nil
}

// importClaudeCode reads the allow rules of a Claude Code settings file.
func importClaudeCode(data []byte, opts ImportOptions) (*builder, error) {
	var s claudeSettings
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("not a Claude Code settings file: %w", err)
	}
	b := &builder{}
	for _, rule := range s.Permissions.Allow {
		b.claudeRule(rule, opts)
	}
	for _, list := range []struct {
		name  string
		rules []string
	}{{"deny", s.Permissions.Deny}, {"ask", s.Permissions.Ask}} {
		for _, rule := range list.rules {
			b.warn("", rule, Wider, "a %s rule has no place in an allowlist policy: dropped", list.name)
		}
	}
	return b, nil
}

// claudeRule adds one allow rule "Tool" or "Tool(spec)".
func (b *builder) claudeRule(rule string, opts ImportOptions) {
	tool, spec, hasSpec := strings.Cut(rule, "(")
	tool = strings.TrimSpace(tool)
	if hasSpec {
		if !strings.HasSuffix(spec, ")") {
			b.warn("", rule, Narrower, "a malformed rule (no closing parenthesis): left out")
			return
		}
		spec = strings.TrimSuffix(spec, ")")
	}
	axis, ok := map[string]policy.Axis{"Read": policy.Read, "Glob": policy.Read, "Grep": policy.Read, "LS": policy.Read,
		"Edit": policy.Write, "Write": policy.Write, "MultiEdit": policy.Write, "NotebookEdit": policy.Write, "Bash": policy.Execute}[tool]
	switch {
	case tool == "WebFetch":
		if !hasSpec {
			b.network = append(b.network, "*:*")
		} else if d, ok := strings.CutPrefix(spec, "domain:"); ok {
			b.network = append(b.network, d+":443")
		} else {
			b.warn("network", rule, Narrower, "a WebFetch rule that names no domain: left out")
		}
	case !ok:
		b.warn("", rule, Same, "the %s tool has no file or network access of its own: left out", tool)
	case !hasSpec || spec == "" || spec == "*":
		b.add(axis, "/**")
	case axis == policy.Execute:
		b.claudeBash(rule, spec)
	default:
		if p, ok := b.claudePath(rule, axis, spec, opts); ok {
			b.add(axis, p)
		}
	}
}

// claudeBash adds the program of a Bash(command) or Bash(prefix:*) rule.
func (b *builder) claudeBash(rule, spec string) {
	prog := strings.Fields(strings.TrimSuffix(spec, ":*"))
	if len(prog) == 0 || !path.IsAbs(prog[0]) {
		b.warn("execute", rule, Narrower, "a command by name: which file it runs is not known here, left out (name the program's absolute path)")
		return
	}
	if len(prog) > 1 || !strings.HasSuffix(spec, ":*") {
		b.warn("execute", rule, Wider, "a rule for one command line: its program may run with any arguments")
	}
	b.add(policy.Execute, prog[0])
}

// claudePath turns a gitignore-style rule path into a policy pattern.
func (b *builder) claudePath(rule string, axis policy.Axis, spec string, opts ImportOptions) (string, bool) {
	var p string
	switch {
	case strings.HasPrefix(spec, "//"):
		p = spec[1:]
	case spec == "~" || strings.HasPrefix(spec, "~/"):
		if opts.Home == "" {
			b.warn(axis.String(), rule, Narrower, "a path below the home directory, which was not given (--home): left out")
			return "", false
		}
		p = path.Join(opts.Home, strings.TrimPrefix(spec, "~"))
	default:
		if opts.Dir == "" {
			b.warn(axis.String(), rule, Narrower, "a path relative to the project, which was not given (--dir): left out")
			return "", false
		}
		rel := strings.TrimPrefix(spec, "./")
		if !strings.Contains(strings.TrimSuffix(rel, "/"), "/") && !strings.HasPrefix(spec, "/") && !strings.HasPrefix(spec, "./") {
			b.warn(axis.String(), rule, Narrower, "a pattern with no slash matches at any depth in gitignore syntax: taken at the project's top only")
		}
		p = path.Join(opts.Dir, rel)
	}
	return b.inner(axis.String(), rule, p), true
}

// inner replaces a "**" that is not trailing (which a policy pattern
// cannot hold) by a trailing one at that point.
func (b *builder) inner(axis, rule, p string) string {
	i := strings.Index(p, "**")
	if i < 0 || i == len(p)-2 && strings.HasSuffix(p, "/**") {
		return p
	}
	base := path.Dir(p[:i] + "x")
	b.warn(axis, rule, Wider, "a \"**\" inside the path: everything below %s", base)
	return path.Join(base, "**")
}
