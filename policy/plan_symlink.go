package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"syscall"
)

// ErrSymlinkTarget is matched (errors.Is) by every *SymlinkError.
var ErrSymlinkTarget = errors.New("pattern reaches its rule through a symlink")

// SymlinkError is returned, with PlanOptions.RefuseSymlinks, for a policy
// pattern whose rule would be reached through a symlink onto a target
// that no pattern of the same axis names.
type SymlinkError struct {
	// Axis and Pattern name the policy entry.
	Axis    string
	Pattern string
	// Link is the symlink on the way (an environment path); Target is
	// the resolved path the rule would grant.
	Link   string
	Target string
	// Planted says why Link may have been planted by someone other than
	// root ("" when it is root's own).
	Planted string
}

func (e *SymlinkError) Error() string {
	msg := fmt.Sprintf("%s pattern %s reaches %s through the symlink %s", e.Axis, e.Pattern, e.Target, e.Link)
	if e.Planted != "" {
		msg += " (a planted link: " + e.Planted + ")"
	}
	return msg + "; name the target itself in the policy"
}

// Is makes errors.Is(err, ErrSymlinkTarget) true.
func (e *SymlinkError) Is(target error) bool { return target == ErrSymlinkTarget }

// checkLinks looks at one policy rule: the pattern p named the
// environment path named, which resolves to target; the rule carrying
// acc lands on rulePath. If a symlink is on the way and no pattern of
// the same axis matches target, the rule is wider than the policy (or,
// with RefuseSymlinks, an error); a link someone other than root could
// have planted is also a loud warning.
func (c *planCompiler) checkLinks(a Axis, p Pattern, named, target, rulePath string, acc Access) error {
	if named == target {
		return nil
	}
	links := c.root.LinksOn(named)
	if len(links) == 0 || c.policyMatches(a, target) {
		return nil
	}
	link, planted := links[0], ""
	for _, l := range links {
		if why := c.plantedBy(l); why != "" {
			link, planted = l, why
			break
		}
	}
	if c.opts.RefuseSymlinks {
		return &SymlinkError{Axis: a.String(), Pattern: p.String(), Link: link, Target: target, Planted: planted}
	}
	how := fmt.Sprintf("%s is reached through the symlink %s", named, link)
	if link == named {
		how = fmt.Sprintf("%s is a symlink", named)
	}
	c.wider(Widening{Kind: WiderSymlink, Axis: a.String(), Pattern: p.String(), Path: rulePath, Extra: acc,
		Link: link, Target: target,
		Detail: fmt.Sprintf("%s: the rule grants %s, which no %s pattern names", how, target, a)})
	if planted != "" {
		c.warn(Warning{Code: WarnPlantedLink, Loud: true, Axis: a.String(), Pattern: p.String(),
			Message: fmt.Sprintf("the symlink %s -> %s may have been planted (%s): the policy grants its target", link, target, planted)})
	}
	return nil
}

// policyMatches reports whether a policy pattern of axis a matches p.
func (c *planCompiler) policyMatches(a Axis, p string) bool {
	for _, q := range c.policy.Get(a) {
		if q.Match(p) {
			return true
		}
	}
	return false
}

// plantedBy says why the symlink l (its directory resolved) could have
// been made by a uid other than root: it is owned by one, or its
// directory is writable by one. It returns "" for root's own links.
func (c *planCompiler) plantedBy(l string) string {
	if st, err := c.root.Lstat(l); err == nil {
		if uid, _, ok := owner(st); ok && uid != 0 {
			return fmt.Sprintf("owned by uid %d", uid)
		}
	}
	dir := path.Dir(l)
	st, err := c.root.Lstat(dir)
	if err != nil {
		return ""
	}
	if why := nonRootWritable(st); why != "" {
		return fmt.Sprintf("its directory %s is %s", dir, why)
	}
	return ""
}

// nonRootWritable says how a uid other than root may write the
// directory st describes, or "".
func nonRootWritable(st fs.FileInfo) string {
	uid, gid, ok := owner(st)
	if !ok {
		return ""
	}
	perm := st.Mode().Perm()
	switch {
	case perm&0o002 != 0:
		return "writable by every user"
	case perm&0o020 != 0 && gid != 0:
		return fmt.Sprintf("writable by group %d", gid)
	case perm&0o200 != 0 && uid != 0:
		return fmt.Sprintf("owned and writable by uid %d", uid)
	}
	return ""
}

// owner returns the uid and gid of a file.
func owner(st fs.FileInfo) (uid, gid uint32, ok bool) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return sys.Uid, sys.Gid, true
}
