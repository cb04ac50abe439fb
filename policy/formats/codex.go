package formats

import (
	"fmt"
	"path"
	"sort"
	"strings"

	toml "github.com/pelletier/go-toml/v2"

	"github.com/authbench/authbench/policy"
)

// codexConfig is the part of Codex's config.toml that sets its sandbox.
type codexConfig struct {
	SandboxMode    string               `toml:"sandbox_mode"`
	WorkspaceWrite *codexWorkspaceWrite `toml:"sandbox_workspace_write,omitempty"`
}

type codexWorkspaceWrite struct {
	WritableRoots       []string `toml:"writable_roots"`
	NetworkAccess       bool     `toml:"network_access"`
	ExcludeTmpdirEnvVar bool     `toml:"exclude_tmpdir_env_var"`
	ExcludeSlashTmp     bool     `toml:"exclude_slash_tmp"`
}

// Codex's sandbox modes.
const (
	modeReadOnly       = "read-only"
	modeWorkspaceWrite = "workspace-write"
	modeFullAccess     = "danger-full-access"
)

// exportCodex writes Codex's sandbox settings: read-only, or
// workspace-write with the policy's write directories as writable roots.
func exportCodex(pol *policy.Policy) (*Exported, error) {
	out := &Exported{Warnings: []Warning{
		{Axis: "read", Effect: Wider, Message: "Codex's sandbox reads every file: the read axis is not enforced"},
		{Axis: "execute", Effect: Wider, Message: "Codex's sandbox runs any readable program: the execute axis is not enforced"},
	}}
	cfg := codexConfig{SandboxMode: modeReadOnly}
	roots := writeRoots(pol, func(w Warning) { out.Warnings = append(out.Warnings, w) })
	if len(roots) > 0 || len(pol.Network) > 0 {
		cfg.SandboxMode = modeWorkspaceWrite
		cfg.WorkspaceWrite = &codexWorkspaceWrite{WritableRoots: roots, NetworkAccess: len(pol.Network) > 0, ExcludeTmpdirEnvVar: true, ExcludeSlashTmp: true}
		out.Warnings = append(out.Warnings, Warning{Axis: "write", Effect: Wider,
			Message: "in workspace-write mode Codex's working directory is writable too, whatever the policy says of it"})
	}
	if len(pol.Network) > 0 {
		out.Warnings = append(out.Warnings, Warning{Axis: "network", Entry: strings.Join(hostEntries(pol), " "), Effect: Wider,
			Message: "Codex's network_access is all or nothing: every host is reachable"})
	}
	data, err := toml.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	out.Text = "# Codex config.toml settings, from an authbench policy.\n" + string(data)
	return out, nil
}

// writeRoots are the directories a subtree-based format makes writable for
// the write axis: the base of "dir/**", an exact directory itself, the
// parent of an exact file, the literal prefix of a glob.
func writeRoots(pol *policy.Policy, warn func(Warning)) []string {
	seen := map[string]bool{}
	var roots []string
	for _, p := range pol.Get(policy.Write) {
		root := p.Base()
		switch {
		case p.HasGlob():
			root = literalPrefix(p.Base())
			warn(Warning{Axis: "write", Entry: p.String(), Effect: Wider, Message: "a glob becomes its literal directory " + root})
		case !p.Recursive():
			warn(Warning{Axis: "write", Entry: p.String(), Effect: Wider,
				Message: "writable roots are directories: an exact entry is taken as everything below it (a file's own path is a root that only it is below)"})
		}
		if !seen[root] {
			seen[root] = true
			roots = append(roots, root)
		}
	}
	sort.Strings(roots)
	return roots
}

// literalPrefix is the directory above the first segment holding a glob.
func literalPrefix(base string) string {
	segs := strings.Split(base, "/")
	for i, s := range segs {
		if strings.ContainsAny(s, "*?[") {
			if p := strings.Join(segs[:i], "/"); p != "" {
				return p
			}
			return "/"
		}
	}
	return base
}

// importCodex reads Codex's sandbox settings.
func importCodex(data []byte, opts ImportOptions) (*builder, error) {
	var cfg codexConfig
	if err := toml.Unmarshal(data, &cfg); err != nil {
		return nil, fmt.Errorf("not a Codex config.toml: %w", err)
	}
	b := &builder{}
	b.add(policy.Read, "/**")
	b.add(policy.Execute, "/**")
	b.warn("read", "", Same, "Codex's sandbox reads every file and runs any readable program: read and execute are /**")
	mode := cfg.SandboxMode
	if mode == "" {
		mode = modeReadOnly
		b.warn("", "sandbox_mode", Same, "no sandbox_mode: taken as Codex's read-only")
	}
	switch mode {
	case modeReadOnly:
	case modeFullAccess:
		b.add(policy.Write, "/**")
		b.network = append(b.network, "*:*")
	case modeWorkspaceWrite:
		b.codexWorkspace(cfg.WorkspaceWrite, opts)
	default:
		return nil, fmt.Errorf("sandbox_mode %q: want %s, %s or %s", mode, modeReadOnly, modeWorkspaceWrite, modeFullAccess)
	}
	return b, nil
}

func (b *builder) codexWorkspace(ww *codexWorkspaceWrite, opts ImportOptions) {
	if ww == nil {
		ww = &codexWorkspaceWrite{}
	}
	if opts.Dir != "" {
		b.add(policy.Write, path.Join(opts.Dir, "**"))
	} else {
		b.warn("write", "workspace", Narrower, "the workspace (Codex's working directory) was not given (--dir): left out")
	}
	for _, r := range ww.WritableRoots {
		if !path.IsAbs(r) {
			b.warn("write", r, Narrower, "a writable root that is not an absolute path: left out")
			continue
		}
		b.add(policy.Write, path.Join(r, "**"))
	}
	if !ww.ExcludeSlashTmp {
		b.add(policy.Write, "/tmp/**")
	}
	if !ww.ExcludeTmpdirEnvVar {
		b.warn("write", "$TMPDIR", Narrower, "Codex also makes $TMPDIR writable, whose value is not known here: left out")
	}
	if ww.NetworkAccess {
		b.network = append(b.network, "*:*")
	}
}
