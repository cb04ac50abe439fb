// Package formats converts permission policies π to and from the formats
// other sandboxes and agents already use: bubblewrap arguments, systemd
// unit settings, landrun arguments, Claude Code's permission rules, Codex's
// sandbox configuration and the Anthropic sandbox runtime's (srt) settings.
//
// Every conversion is a pure function. What the other side cannot express
// (srt and Codex have no execute axis and no read allowlist, systemd and
// bubblewrap take paths, not globs) is a Warning, never dropped silently.
// Path-hierarchy targets (bwrap, landrun, systemd) are exported from the
// policy's Landlock plan (policy.CompilePlan) against a root: the paths a
// glob matches now, the nearest existing ancestor of a file not made yet,
// and the plan's own widenings all carry over as warnings.
package formats

import (
	"fmt"
	"sort"
	"strings"

	"github.com/authbench/authbench/policy"
)

// Format names a policy format.
type Format string

// The formats.
const (
	Bwrap      Format = "bwrap"
	Systemd    Format = "systemd"
	Landrun    Format = "landrun"
	ClaudeCode Format = "claude-code"
	Codex      Format = "codex"
	SRT        Format = "srt"
)

// ExportFormats and ImportFormats list what Export and Import take.
var (
	ExportFormats = []Format{Bwrap, Systemd, Landrun, ClaudeCode, Codex, SRT}
	ImportFormats = []Format{ClaudeCode, Codex, SRT, Systemd}
)

// ParseFormat returns the format named s, one of list.
func ParseFormat(s string, list []Format) (Format, error) {
	names := make([]string, len(list))
	for i, f := range list {
		if string(f) == s {
			return f, nil
		}
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown format %q (want %s)", s, strings.Join(names, ", "))
}

// Warning is one thing a conversion could not carry over exactly.
type Warning struct {
	// Axis is "read", "write", "execute", "network" or "" (the whole policy).
	Axis string `json:"axis,omitempty"`
	// Entry is the policy entry or the other format's rule concerned.
	Entry string `json:"entry,omitempty"`
	// Effect says whether the result is wider or narrower than the input.
	Effect Effect `json:"effect"`
	// Message says what happened, in words.
	Message string `json:"message"`
}

// Effect is what a warning does to the access granted.
type Effect string

// The effects: the result grants more, grants less, or the same access
// in another way.
const (
	Wider    Effect = "wider"
	Narrower Effect = "narrower"
	Same     Effect = "same"
)

func (w Warning) String() string {
	var b strings.Builder
	b.WriteString(string(w.Effect))
	if w.Axis != "" {
		b.WriteString(" " + w.Axis)
	}
	if w.Entry != "" {
		b.WriteString(" " + w.Entry)
	}
	return b.String() + ": " + w.Message
}

// Exported is a policy in another format.
type Exported struct {
	Format Format `json:"format"`
	// Text is the file or command line, as the other tool takes it.
	Text string `json:"text"`
	// Args is the argument list of a command-line format (bwrap,
	// landrun), to which the confined command is appended.
	Args     []string  `json:"args,omitempty"`
	Warnings []Warning `json:"warnings"`
}

// ExportOptions are the inputs of an export besides the policy.
type ExportOptions struct {
	// Root is the tree path-hierarchy formats are compiled against (the
	// host, "/", for a policy to enforce here).
	Root *policy.Root
	// Baseline is added to the policy as enforcement adds it (the
	// default runtime baseline; policy.NoBaseline() for π alone).
	Baseline policy.Baseline
}

// Export converts pol into the format f.
func Export(pol *policy.Policy, f Format, opts ExportOptions) (*Exported, error) {
	var (
		out *Exported
		err error
	)
	switch f {
	case Bwrap, Landrun, Systemd:
		var ms *mountSet
		if ms, err = mountsOf(pol, opts); err == nil {
			out = map[Format]func(*mountSet, *policy.Policy) *Exported{Bwrap: exportBwrap, Landrun: exportLandrun, Systemd: exportSystemd}[f](ms, pol)
			out.Warnings = append(ms.warnings, out.Warnings...)
		}
	case ClaudeCode:
		out, err = exportClaudeCode(pol)
	case Codex:
		out, err = exportCodex(pol)
	case SRT:
		out, err = exportSRT(pol)
	default:
		return nil, fmt.Errorf("export: unknown format %q", f)
	}
	if err != nil {
		return nil, fmt.Errorf("export %s: %w", f, err)
	}
	out.Format = f
	if out.Warnings == nil {
		out.Warnings = []Warning{}
	}
	return out, nil
}

// ImportOptions resolve what the other format leaves relative.
type ImportOptions struct {
	// Home is the home directory "~" stands for; "" leaves such rules out
	// (with a warning).
	Home string
	// Dir is the directory relative rules are taken from (Claude Code's
	// project directory, Codex's workspace); "" leaves them out.
	Dir string
	// NoNetwork leaves the network entries out, for the published
	// three-key format (authbench exec, policy check) (with a warning).
	NoNetwork bool
}

// Import converts a file of the format f (named name in messages) into a
// policy, which is valid by construction (policy.ParsePolicy checks it).
func Import(data []byte, f Format, name string, opts ImportOptions) (*policy.Policy, []Warning, error) {
	var (
		b   *builder
		err error
	)
	switch f {
	case ClaudeCode:
		b, err = importClaudeCode(data, opts)
	case Codex:
		b, err = importCodex(data, opts)
	case SRT:
		b, err = importSRT(data)
	case Systemd:
		b, err = importSystemd(data)
	default:
		return nil, nil, fmt.Errorf("import %s: unknown format %q", name, f)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("import %s (%s): %w", name, f, err)
	}
	if opts.NoNetwork && len(b.network) > 0 {
		b.warn("network", strings.Join(b.network, " "), Narrower, "network entries left out (--no-network): no host is granted")
		b.network = nil
	}
	pol, err := b.policy(name)
	if err != nil {
		return nil, nil, fmt.Errorf("import %s (%s): %w", name, f, err)
	}
	if b.warnings == nil {
		b.warnings = []Warning{}
	}
	return pol, b.warnings, nil
}

// builder collects the entries of an imported policy.
type builder struct {
	axes     [len(policy.Axes)][]string
	network  []string
	warnings []Warning
}

func (b *builder) add(a policy.Axis, pattern string) { b.axes[a] = append(b.axes[a], pattern) }

func (b *builder) warn(axis, entry string, e Effect, format string, args ...any) {
	b.warnings = append(b.warnings, Warning{Axis: axis, Entry: entry, Effect: e, Message: fmt.Sprintf(format, args...)})
}

// policy builds the policy: patterns normalised, duplicates merged.
func (b *builder) policy(name string) (*policy.Policy, error) {
	doc := map[string][]string{}
	for _, a := range policy.Axes {
		doc[a.String()] = dedupe(b.axes[a])
	}
	// No network key is no host, as an empty one is: the key is written
	// only when it grants something.
	if len(b.network) > 0 {
		doc["network"] = dedupe(b.network)
	}
	return policy.ParsePolicyFor(mustJSON(doc), name, NetworkSpec)
}

// NetworkSpec lets a policy parser take the network key: a policy to
// convert may name hosts (policy.ParsePolicyFor).
var NetworkSpec = &policy.Spec{Network: policy.NetworkSpec{Declared: true}}

// dedupe normalises patterns as the policy parser does and drops the
// duplicates it would refuse.
func dedupe(list []string) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, s := range list {
		key := s
		if p, err := policy.ParsePattern(s); err == nil {
			key = p.String()
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, key)
		}
	}
	sort.Strings(out)
	return out
}
