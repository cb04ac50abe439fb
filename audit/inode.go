package audit

import (
	"path"
	"strings"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/tracer/trace"
)

// Landlock attaches each rule to the inode its path named when the
// sandbox started, not to the name. A file the agent removes and makes
// again (git checking out a file, an editor saving through a temporary
// name) is a new inode without the old one's rule: a read of it is
// refused although the plan, read by name, grants it. The Auditor follows
// the run's unlinks, rmdirs, renames and links so that its copy of the
// rules stays where the kernel's are.

// followInodes moves the live rules along a successful operation that
// removes, replaces or adds a name of an inode.
func (a *Auditor) followInodes(ev *trace.Event) {
	if a.plan == nil || ev.Failed() {
		return
	}
	switch ev.Op {
	case trace.OpUnlink, trace.OpRmdir:
		a.dropRules(a.entryName(ev.Path))
	case trace.OpRename:
		from, to := a.entryName(ev.Path), a.entryName(ev.Path2)
		if from != to {
			a.moveRules(from, to)
		}
	case trace.OpLink:
		a.linkRule(a.entryName(ev.Path), a.entryName(ev.Path2))
	}
}

// entryName is the rule path of a directory entry: the realpath of its
// directory plus its own name (these operations do not follow a final
// symlink).
func (a *Auditor) entryName(p string) string {
	if p == "" || p == "/" {
		return p
	}
	dir := path.Dir(p)
	if a.realpath != nil {
		dir = a.realpath(dir)
	}
	return path.Join(dir, path.Base(p))
}

// under reports whether p is root or lies below it.
func under(p, root string) bool {
	return p == root || root == "/" || strings.HasPrefix(p, root+"/")
}

// ownRules makes the Auditor's plan a copy it may change, once.
func (a *Auditor) ownRules() {
	if a.ownPlan {
		return
	}
	cp := *a.plan
	cp.Rules = append([]policy.Rule(nil), a.plan.Rules...)
	a.plan, a.ownPlan = &cp, true
}

func (a *Auditor) hasRulesUnder(p string) bool {
	for i := range a.plan.Rules {
		if under(a.plan.Rules[i].Path, p) {
			return true
		}
	}
	return false
}

// dropRules forgets the rules on p and below: their inodes are gone.
func (a *Auditor) dropRules(p string) {
	if !a.hasRulesUnder(p) {
		return
	}
	a.ownRules()
	kept := a.plan.Rules[:0]
	for _, r := range a.plan.Rules {
		if !under(r.Path, p) {
			kept = append(kept, r)
		}
	}
	a.plan.Rules = kept
}

// moveRules follows a rename: the inode that was at to (and its rules)
// is replaced, and the rules at and below from now name paths below to.
func (a *Auditor) moveRules(from, to string) {
	a.dropRules(to)
	if !a.hasRulesUnder(from) {
		return
	}
	a.ownRules()
	for i := range a.plan.Rules {
		if r := &a.plan.Rules[i]; under(r.Path, from) {
			r.Path = to + strings.TrimPrefix(r.Path, from)
		}
	}
}

// linkRule follows a hard link: the file's rule holds under its new name
// too.
func (a *Auditor) linkRule(from, to string) {
	for _, r := range a.plan.Rules {
		if r.Path == from && !r.Dir {
			a.ownRules()
			r.Path = to
			a.plan.Rules = append(a.plan.Rules, r)
			return
		}
	}
}
