package policy

import (
	"fmt"
	"sort"
)

// MaxSensitiveFiles bounds how many files of one sensitive pattern
// SensitiveGrants looks at (a sensitive "/home/**" of a large tree): the
// first ones in walk order are judged, and Truncated says so.
const MaxSensitiveFiles = 20000

// SensitiveGrant is a sensitive path that a plan's rules let be reached
// on its axis: what a policy grants once enforced, which may be wider
// than what it names (a directory's hierarchy, a missing file's nearest
// existing ancestor, a written file's parent directory).
type SensitiveGrant struct {
	// Axis is the axis the file is reached on (JSON: its name).
	Axis Axis `json:"axis"`
	// Path is the sensitive file, as the environment names it.
	Path string `json:"path"`
	// Sensitive is the sensitive_permissions pattern it matches.
	Sensitive string `json:"sensitive"`
	// Rule is the plan rule's path that grants it.
	Rule string `json:"rule"`
	// Patterns are the entries ("axis pattern") behind that rule.
	Patterns []string `json:"patterns"`
}

func (g SensitiveGrant) String() string {
	return fmt.Sprintf("%s %s (sensitive %q) through the rule on %s from %v", g.Axis, g.Path, g.Sensitive, g.Rule, g.Patterns)
}

// neededRight is the right that reaching a file of axis a takes: reading
// or running it, writing it when it exists, creating it when it does not.
func neededRight(a Axis, exists bool) Access {
	switch {
	case a == Read:
		return AccessReadFile
	case a == Execute:
		return AccessExecute
	case exists:
		return AccessWriteFile
	}
	return AccessMakeReg
}

// SensitiveGrants lists the sensitive files (per axis, the paths the
// sensitive patterns name in root: an exact path whether or not it
// exists, the files below a "dir/**", a glob's current matches) that the
// plan's rules of the given origins (OriginPolicy when none is given)
// grant on that axis. The plan must have been compiled against root.
// This is the one test of "would this policy grant a sensitive file"
// under the plan's semantics, for recordings, attribution, errata and the
// report alike.
func (pl *Plan) SensitiveGrants(sens *Permissions, root *Root, origins ...string) []SensitiveGrant {
	if sens == nil {
		return nil
	}
	if len(origins) == 0 {
		origins = []string{OriginPolicy}
	}
	var out []SensitiveGrant
	exp := newExpander(root)
	for _, a := range Axes {
		for _, s := range sens.Get(a) {
			for _, name := range sensitiveFiles(exp, root, s) {
				real := root.Realpath(name)
				need := neededRight(a, exp.lstat(real) != nil)
				if g, ok := pl.grantOf(real, need, origins); ok {
					g.Axis, g.Path, g.Sensitive = a, name, s.String()
					out = append(out, g)
				}
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Axis != out[j].Axis {
			return out[i].Axis < out[j].Axis
		}
		return out[i].Path < out[j].Path
	})
	return out
}

// grantOf returns the rule that grants need on the realpath p through
// sources of the given origins: the rule on p itself or a directory rule
// above it.
func (pl *Plan) grantOf(p string, need Access, origins []string) (SensitiveGrant, bool) {
	for _, r := range pl.Rules {
		if r.Path != p && !(r.Dir && isWithin(p, r.Path)) {
			continue
		}
		var acc Access
		var pats []string
		for _, src := range r.From {
			for _, o := range origins {
				if src.Origin == o && src.Access&need != 0 {
					acc |= src.Access
					pats = append(pats, src.Axis+" "+src.Pattern)
				}
			}
		}
		if acc.Has(need) {
			return SensitiveGrant{Rule: r.Path, Patterns: pats}, true
		}
	}
	return SensitiveGrant{}, false
}

// sensitiveFiles are the environment paths pattern s names in root: an
// exact path (existing or not), the files below the base of a "dir/**"
// (or the base itself when it is not a directory), a glob's current
// matches (and, recursive, the files below them); at most
// MaxSensitiveFiles.
func sensitiveFiles(exp *expander, root *Root, s Pattern) []string {
	if s.IsExact() {
		return []string{s.Base()}
	}
	bases := []string{s.Base()}
	if s.HasGlob() {
		m, err := exp.expand(s)
		if err != nil {
			return nil
		}
		bases = m
	}
	if !s.Recursive() {
		return bases
	}
	var out []string
	for _, b := range bases {
		if !exp.isDir(b) {
			out = append(out, b)
			continue
		}
		root.eachFile(b, func(p string) {
			if len(out) < MaxSensitiveFiles {
				out = append(out, p)
			}
		})
	}
	return out
}

// PolicySensitiveGrants compiles pol (no baseline) against root with the
// semantics sem and lists the sensitive files of spec its rules grant
// (Plan.SensitiveGrants). A policy that does not compile is an error.
func PolicySensitiveGrants(pol *Policy, spec *Spec, root *Root, sem Semantics) ([]SensitiveGrant, error) {
	if spec == nil || spec.Sensitive == nil {
		return nil, nil
	}
	pl, err := CompilePlanWith(pol, NoBaseline(), root, PlanOptions{Semantics: sem})
	if err != nil {
		return nil, err
	}
	return pl.SensitiveGrants(spec.Sensitive, root), nil
}

// Exposing keeps the grants that expose a sensitive file: reading or
// running it. A sensitive write entry below a directory a task writes in
// is granted by every entry that lets it create its output there
// (Landlock grants creating files on a directory, under both semantics;
// the published launcher grants the whole parent), so such grants are
// reported but refuse no entry of a recording, an attribution or an
// erratum: the shortcut's replay decides.
func Exposing(gs []SensitiveGrant) []SensitiveGrant {
	var out []SensitiveGrant
	for _, g := range gs {
		if g.Axis != Write {
			out = append(out, g)
		}
	}
	return out
}
