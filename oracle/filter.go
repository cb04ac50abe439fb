package oracle

import (
	"strings"

	"github.com/authbench/authbench/policy"
)

// within reports whether the clean absolute path p is root or lies below it.
func within(p, root string) bool {
	return p == root || root == "/" || strings.HasPrefix(p, root+"/")
}

// InScoredRoots reports whether p lies inside one of roots (or, when env
// is set, inside one of their realpaths: /bin/sh inside a /usr/bin root
// when /bin links to /usr/bin).
func InScoredRoots(p string, roots []policy.Pattern, env Env) bool {
	for _, r := range roots {
		if within(p, r.Base()) || env != nil && within(p, env.Realpath(r.Base())) {
			return true
		}
	}
	return false
}

// Implicit reports whether an implicit pattern of the axis covers p.
func Implicit(p string, implicit []policy.Pattern) bool {
	for _, pat := range implicit {
		if pat.Match(p) {
			return true
		}
	}
	return false
}

// Filtered is what the filters kept of one axis, and what they dropped.
type Filtered struct {
	Kept         []string
	OutsideRoots []string
	Implicit     []string
}

// FilterPaths keeps the paths (sorted) of one axis that lie inside the
// axis' scored roots and that no implicit pattern of the axis covers.
func FilterPaths(paths []string, roots, implicit []policy.Pattern, env Env) Filtered {
	var f Filtered
	for _, p := range paths {
		switch {
		case !InScoredRoots(p, roots, env):
			f.OutsideRoots = append(f.OutsideRoots, p)
		case Implicit(p, implicit):
			f.Implicit = append(f.Implicit, p)
		default:
			f.Kept = append(f.Kept, p)
		}
	}
	return f
}

// DropRootListings removes from the read paths the directories the run
// listed that are a scored root or lie above one: a read entry for such
// a directory grants every file below it (Landlock's rules are
// hierarchies), the sensitive ones included, while a listing is rarely
// what a program needs (Python lists its working directory for imports
// and does without). Verify shows when one is needed.
func DropRootListings(paths []string, listed map[string]bool, roots []policy.Pattern) (kept, dropped []string) {
	for _, p := range paths {
		if listed[p] && coversRoot(p, roots) {
			dropped = append(dropped, p)
		} else {
			kept = append(kept, p)
		}
	}
	return kept, dropped
}

// coversRoot: d is one of roots or lies above one.
func coversRoot(d string, roots []policy.Pattern) bool {
	for _, r := range roots {
		if within(r.Base(), d) {
			return true
		}
	}
	return false
}
