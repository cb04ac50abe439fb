package policy

import (
	"sort"
	"strings"
)

// Plan is a policy compiled into Landlock rules against one environment
// root (docs/architecture.md). It is pure data: it can be printed, stored with a run
// and compared with what the kernel later allowed, and sandbox-init turns
// it into a ruleset without consulting the policy again.
type Plan struct {
	// Root is the host directory the plan was compiled against ("/" for
	// the host itself). Rule paths are environment paths inside it.
	Root string `json:"root"`
	// Baseline names the runtime baseline: "default", "none" or a spec
	// file.
	Baseline string `json:"baseline"`
	// Semantics is how the policy's patterns became rules.
	Semantics Semantics `json:"semantics"`
	// Rules are the Landlock rules, one per path, sorted by path.
	Rules []Rule `json:"rules"`
	// Wider lists every place where a rule grants more than the policy
	// asked for (Landlock works on hierarchies and on fixed right sets).
	Wider []Widening `json:"wider,omitempty"`
	// Warnings are problems with the policy in this environment that do
	// not stop enforcement (patterns that match nothing, write access to
	// the whole tree).
	Warnings []Warning `json:"warnings,omitempty"`
}

// Origins of a rule.
const (
	OriginPolicy   = "policy"   // the policy π
	OriginBaseline = "baseline" // the runtime baseline (spec implicit_permissions or the default)
	OriginSandbox  = "sandbox"  // what any program needs to start (loader, libraries, /dev/null)
)

// Rule grants Access on Path: on that file, or, for a directory, on the
// directory and everything below it.
type Rule struct {
	// Path is the realpath of the rule inside the environment.
	Path string `json:"path"`
	// Dir reports whether Path is a directory (a hierarchy rule).
	Dir bool `json:"dir"`
	// Access is the set of rights granted.
	Access Access `json:"access"`
	// From lists the patterns that produced the rule.
	From []RuleSource `json:"from"`
	// Runtime: the path lies below a mount the container sets up, so
	// sandbox-init opens it there after the mounts, and skips it when it
	// does not exist.
	Runtime bool `json:"runtime,omitempty"`
}

// RuleSource is one pattern that contributed to a rule.
type RuleSource struct {
	// Origin is OriginPolicy, OriginBaseline or OriginSandbox.
	Origin string `json:"origin"`
	// Axis is "read", "write" or "execute".
	Axis string `json:"axis"`
	// Pattern is the normalised pattern.
	Pattern string `json:"pattern"`
	// Match is the path the pattern matched when it differs from the
	// rule's path (a symlink, or a missing write target whose ancestor
	// carries the rule).
	Match string `json:"match,omitempty"`
	// Access is what this pattern contributed.
	Access Access `json:"access"`
}

// Widening kinds.
const (
	// WiderDirectory: a pattern that names a directory without "/**"
	// (or a glob that matched one) grants the whole hierarchy below it.
	WiderDirectory = "directory-hierarchy"
	// WiderCreate: a write target that does not exist yet (or new
	// matches of a write glob) gets creation rights on an ancestor
	// directory, so any new file there may be created.
	WiderCreate = "create-in-ancestor"
	// WiderExecRead: an execute pattern also grants reading the program.
	WiderExecRead = "execute-implies-read"
	// WiderSymlink: the pattern's path reaches its rule through a
	// symlink, and no pattern of the same axis names the target.
	WiderSymlink = "symlink-target"
	// WiderParentDir (published semantics): a write pattern grants the
	// write, create and remove rights on the target's parent directory
	// (or its closest existing ancestor).
	WiderParentDir = "write-parent-directory"
	// WiderReadAncestor (published semantics): a read target that does
	// not exist grants reading its closest existing ancestor.
	WiderReadAncestor = "read-ancestor"
	// WiderRights (published semantics): a rule grants rights the
	// precise plan would not (read_dir, make_char, make_block on a
	// written directory).
	WiderRights = "extra-rights"
)

// Widening is one place where the plan grants more than the policy.
type Widening struct {
	// Kind is one of the Wider* constants.
	Kind string `json:"kind"`
	// Axis and Pattern name the policy entry.
	Axis    string `json:"axis"`
	Pattern string `json:"pattern"`
	// Path is the rule path that carries the extra rights.
	Path string `json:"path"`
	// Extra is the set of rights granted beyond the policy at Path.
	Extra Access `json:"extra"`
	// Link and Target are set for WiderSymlink: the symlink on the way
	// (a planted one if there is one) and the resolved path granted.
	Link   string `json:"link,omitempty"`
	Target string `json:"target,omitempty"`
	// Detail says in words what is wider.
	Detail string `json:"detail"`
}

// Warning codes.
const (
	// WarnNoMatch: a pattern matched no existing path (and, for write,
	// no directory could take creation rights). It is still enforced:
	// it grants nothing.
	WarnNoMatch = "no-match"
	// WarnWriteRoot: the policy grants write access to "/" or "/**".
	WarnWriteRoot = "write-root"
	// WarnCreateAtRoot: a missing write target's nearest existing
	// ancestor is "/", which never receives creation rights.
	WarnCreateAtRoot = "create-at-root"
	// WarnPlantedLink (loud): a policy rule is reached through a symlink
	// owned by a uid other than root, or sitting in a directory such a
	// uid may write: someone may have planted it to be granted its
	// target.
	WarnPlantedLink = "planted-link"
)

// Warning is a problem with one policy entry in this environment.
type Warning struct {
	// Code is one of the Warn* constants.
	Code string `json:"code"`
	// Loud marks warnings that must not be missed (write access to the
	// whole tree, a planted symlink).
	Loud    bool   `json:"loud,omitempty"`
	Axis    string `json:"axis"`
	Pattern string `json:"pattern"`
	Message string `json:"message"`
}

// Allowed returns the rights the plan grants on the clean absolute
// environment path p (a realpath): the union of the rule on p itself and
// of every directory rule on p or one of its ancestors. It is the
// prediction the kernel's decisions are checked against.
func (pl *Plan) Allowed(p string) Access {
	var a Access
	for _, r := range pl.Rules {
		switch {
		case r.Path == p:
			a |= r.Access
		case r.Dir && isWithin(p, r.Path):
			a |= r.Access
		}
	}
	return a
}

// Rule returns the rule on exactly path p, or nil.
func (pl *Plan) Rule(p string) *Rule {
	i := sort.Search(len(pl.Rules), func(i int) bool { return pl.Rules[i].Path >= p })
	if i < len(pl.Rules) && pl.Rules[i].Path == p {
		return &pl.Rules[i]
	}
	return nil
}

// Access returns the union of every rule's rights: the rights the
// ruleset must handle for the plan to mean anything.
func (pl *Plan) Access() Access {
	var a Access
	for _, r := range pl.Rules {
		a |= r.Access
	}
	return a
}

// LoudWarnings returns the warnings marked Loud.
func (pl *Plan) LoudWarnings() []Warning {
	var out []Warning
	for _, w := range pl.Warnings {
		if w.Loud {
			out = append(out, w)
		}
	}
	return out
}

// ruleSet accumulates rules by path while a plan is compiled.
type ruleSet map[string]*Rule

func (rs ruleSet) add(p string, dir bool, acc Access, src RuleSource) {
	src.Access = acc
	r, ok := rs[p]
	if !ok {
		r = &Rule{Path: p, Dir: dir}
		rs[p] = r
	}
	r.Access |= acc
	for _, s := range r.From {
		if s == src {
			return
		}
	}
	r.From = append(r.From, src)
}

// sorted returns the rules ordered by path.
func (rs ruleSet) sorted() []Rule {
	out := make([]Rule, 0, len(rs))
	for _, r := range rs {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// underDev reports whether p is /dev or below it (device files, where
// the ioctl right matters).
func underDev(p string) bool { return p == "/dev" || strings.HasPrefix(p, "/dev/") }
