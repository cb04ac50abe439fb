package oracle

import (
	"path"
	"sort"
	"strings"

	"github.com/authbench/authbench/policy"
)

// Compaction rules: each turns paths the oracle reached into a pattern
// that does not depend on one run's accidents.
const (
	// RuleCreatedRemoved: a file or directory the oracle created and then
	// removed (scratch space) becomes its directory's dir/**.
	RuleCreatedRemoved = "created-then-removed"
	// RuleGeneratedName: a created file whose name looks generated
	// (GeneratedName) becomes its directory's dir/**; where that
	// directory is a scored root or "/", the name becomes a glob instead.
	RuleGeneratedName = "generated-name"
	// RuleManySiblings: more than ListLimit entries created in one
	// directory (a build tree) become that directory's dir/**; up to
	// ListLimit are listed one by one, as a curator lists them.
	//
	// When the directory a rule chose was itself created by the oracle,
	// the dir/** is that of the nearest directory above it that was in
	// the image (still never "/", a scored root or above one): a Landlock
	// rule can only be placed on a directory that exists at launch.
	RuleManySiblings = "many-siblings"
	// RuleCreatedExecuted: a program the oracle built or wrote and then
	// ran (execute axis) becomes the dir/** of the nearest directory above
	// it that was in the image: an execute right can only be placed on
	// what exists at launch, and the program does not exist yet. That
	// directory may be a scored root of the execute axis (never "/",
	// never above a root): nothing narrower can be enforced.
	RuleCreatedExecuted = "created-then-executed"
)

// ListLimit is how many entries created in one directory compaction
// still lists one by one; more make the directory a dir/**
// (RuleManySiblings). Listing stays enforceable for files created and
// kept: an entry for a file missing at launch grants creating and
// writing it on its nearest existing directory. Files created and
// removed (RuleCreatedRemoved) need the directory's remove rights and
// files with generated names (RuleGeneratedName) differ from run to run,
// so those rules apply whatever the count.
const ListLimit = 32

// Compaction is one rule's work on one axis: the paths From became To.
type Compaction struct {
	Axis string   `json:"axis"`
	Rule string   `json:"rule"`
	To   string   `json:"to"`
	From []string `json:"from"`
}

// CompactInput is what Compact works on.
type CompactInput struct {
	// Paths are one run's filtered paths per axis (policy.Axis index).
	Paths [len(policy.Axes)][]string
	// Created and Removed are the run's (Accesses).
	Created, Removed map[string]bool
	// Roots are the spec's scored_roots: a dir/** is never "/", a scored
	// root itself or above one, and always inside a root of its axis.
	Roots policy.Permissions
}

// Compact applies the compaction rules and returns the entries of each
// axis (sorted, without duplicates) and what each rule did. Paths under
// no rule stay as they are.
func Compact(in CompactInput) (entries [len(policy.Axes)][]string, log []Compaction) {
	collapse, narrow := collapseDirs(in)
	type key struct{ axis, rule, to string }
	from := map[key][]string{}
	for _, ax := range policy.Axes {
		set := map[string]bool{}
		for _, p := range in.Paths[ax] {
			to, rule := compactPath(p, ax, in, collapse, narrow)
			set[to] = true
			if rule != "" {
				k := key{ax.String(), rule, to}
				from[k] = append(from[k], p)
			}
		}
		entries[ax] = sortedKeys(set)
	}
	for k, ps := range from {
		sort.Strings(ps)
		log = append(log, Compaction{Axis: k.axis, Rule: k.rule, To: k.to, From: ps})
	}
	sort.Slice(log, func(i, j int) bool {
		a, b := log[i], log[j]
		if a.Axis != b.Axis {
			return axisIndex(a.Axis) < axisIndex(b.Axis)
		}
		return a.To < b.To
	})
	return entries, log
}

func axisIndex(name string) int {
	a, _ := policy.ParseAxis(name)
	return int(a)
}

// compactPath is the entry p becomes on axis ax, and the rule that made
// it ("" when none did).
func compactPath(p string, ax policy.Axis, in CompactInput, collapse, narrow map[string]string) (string, string) {
	if ax == policy.Execute && in.Created[p] {
		if d := existingAncestor(p, in.Created); d != "/" && insideRoot(d, in.Roots.Get(ax)) {
			return d + "/**", RuleCreatedExecuted
		}
	}
	// The shallowest collapse directory holding p that lies strictly
	// inside a scored root of this axis.
	for _, d := range ancestorsTopDown(p) {
		rule, ok := collapse[d]
		if !ok || !strictlyInsideRoot(d, in.Roots.Get(ax)) {
			continue
		}
		if c := narrow[d]; ax == policy.Write && c != "" {
			// Write: the one directory the oracle made below d, whose
			// dir/** is enforced on d (its nearest existing directory).
			if within(p, c) {
				return globSegments(c, in.Created) + "/**", rule
			}
			break
		}
		return globSegments(d, in.Created) + "/**", rule
	}
	g := globSegments(p, in.Created)
	if g != p {
		return g, RuleGeneratedName
	}
	return p, ""
}

// ancestorsTopDown lists p's ancestors below "/" from the top, then p.
func ancestorsTopDown(p string) []string {
	var out []string
	for q := p; q != "/" && q != "." && q != ""; q = path.Dir(q) {
		out = append(out, q)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// globSegments replaces in p the name of every created path whose name
// looks generated by its glob (GeneratedName).
func globSegments(p string, created map[string]bool) string {
	segs := strings.Split(p, "/")
	changed := false
	for i := 1; i < len(segs); i++ {
		q := strings.Join(segs[:i+1], "/")
		if !created[q] {
			continue
		}
		if g, ok := GeneratedName(segs[i]); ok {
			segs[i], changed = g, true
		}
	}
	if !changed {
		return p
	}
	return strings.Join(segs, "/")
}

// existingAncestor is the nearest directory above p that the oracle did
// not create (it was in the image).
func existingAncestor(p string, created map[string]bool) string {
	d := path.Dir(p)
	for d != "/" && d != "." && created[d] {
		d = path.Dir(d)
	}
	return d
}

// insideRoot: d is one of roots or lies below one.
func insideRoot(d string, roots []policy.Pattern) bool {
	for _, r := range roots {
		if within(d, r.Base()) {
			return true
		}
	}
	return false
}

// strictlyInsideRoot: d lies below one of roots and is none of them.
func strictlyInsideRoot(d string, roots []policy.Pattern) bool {
	for _, r := range roots {
		if d != r.Base() && within(d, r.Base()) {
			return true
		}
	}
	return false
}

// collapseDirs finds the directories whose contents become dir/**, with
// the rule that chose each; a directory below another one is dropped.
// narrow maps a directory reached by climbing from directories the oracle
// made to the one directory it made there, when all the climbs from below
// it went through that one (the write axis takes its dir/**: a write
// dir/** of a directory missing at launch is enforced on its nearest
// existing directory, so it is as enforceable and reads like a curated
// "dist/**").
func collapseDirs(in CompactInput) (collapse, narrow map[string]string) {
	var rootList []string
	for _, ax := range policy.Axes {
		for _, r := range in.Roots.Get(ax) {
			rootList = append(rootList, r.Base())
		}
	}
	allowed := func(d string) bool {
		if d == "/" || d == "." {
			return false
		}
		for _, r := range rootList {
			if within(r, d) { // d is a scored root or above one
				return false
			}
		}
		return true
	}
	cands := map[string]string{}
	// made: per climbed-to directory, the directories made below it that
	// the climbs went through ("" for a candidate that did not climb).
	made := map[string]map[string]bool{}
	add := func(d, rule string) {
		if !allowed(d) {
			return
		}
		// A directory the oracle made itself is not the base: the
		// directory above it is, up to one that was in the image, so that
		// the dir/** names a directory that exists when the run starts
		// (Landlock rules are placed on existing directories only).
		child := ""
		for in.Created[d] && allowed(path.Dir(d)) {
			child, d = d, path.Dir(d)
		}
		if made[d] == nil {
			made[d] = map[string]bool{}
		}
		if in.Created[d] {
			child = "" // the climb stopped below a scored root: d is as narrow
		}
		made[d][child] = true
		if _, ok := cands[d]; !ok {
			cands[d] = rule
		}
	}
	created := sortedKeys(in.Created)
	children := map[string]int{}
	for _, p := range created {
		children[path.Dir(p)]++
	}
	for _, p := range created {
		if in.Removed[p] {
			add(path.Dir(p), RuleCreatedRemoved)
		}
	}
	for _, p := range created {
		if _, ok := GeneratedName(path.Base(p)); ok {
			add(path.Dir(p), RuleGeneratedName)
		}
	}
	for _, d := range sortedKeys(boolSet(children, ListLimit+1)) {
		add(d, RuleManySiblings)
	}
	collapse, narrow = map[string]string{}, map[string]string{}
	for d, rule := range cands {
		top := true
		for a := path.Dir(d); a != "/" && a != "."; a = path.Dir(a) {
			if _, ok := cands[a]; ok {
				top = false
				break
			}
		}
		if !top {
			continue
		}
		collapse[d] = rule
		if len(made[d]) == 1 {
			for c := range made[d] {
				narrow[d] = c
			}
		}
	}
	return collapse, narrow
}

func boolSet(counts map[string]int, min int) map[string]bool {
	out := map[string]bool{}
	for k, n := range counts {
		if n >= min {
			out[k] = true
		}
	}
	return out
}

// addCompactions adds one run's compaction log to logs, keyed by axis,
// rule and pattern: the paths of every run that became the same pattern
// by the same rule are listed under it.
func addCompactions(logs map[string]*Compaction, log []Compaction) {
	for _, c := range log {
		k := c.Axis + "\x00" + c.Rule + "\x00" + c.To
		if logs[k] == nil {
			cc := c
			cc.From = nil
			logs[k] = &cc
		}
		logs[k].From = append(logs[k].From, c.From...)
	}
}
