package policy

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
)

// accessPublishedWrite is what the published launcher grants for a write
// pattern on the target's parent directory (or, for "dir/**", on the
// directory): list it, write, truncate, create anything (devices
// included), remove and move entries.
const accessPublishedWrite = AccessReadDir | AccessWriteFile | AccessTruncate | AccessRefer |
	AccessMakeChar | AccessMakeDir | AccessMakeReg | AccessMakeSock | AccessMakeFifo |
	AccessMakeBlock | AccessMakeSym | AccessRemoveDir | AccessRemoveFile

// accessPublishedWriteFile is what it grants on an existing write target.
const accessPublishedWriteFile = AccessWriteFile | AccessTruncate

// compilePublished adds the rules of one policy pattern the way the
// published AuthBench launcher does:
//   - read: READ_FILE on an existing file, READ_FILE+READ_DIR on an
//     existing directory; a missing path gives READ_FILE+READ_DIR on its
//     closest existing ancestor (never "/");
//   - write: accessPublishedWrite on the parent directory of the name
//     (the closest existing ancestor of a missing path, never "/"), plus
//     WRITE_FILE and TRUNCATE on the path itself (followed) when it
//     exists;
//   - "dir/**": the directory itself (write: its closest existing
//     ancestor when it is missing; read and execute: nothing);
//   - execute: EXECUTE+READ_FILE on the path when it exists;
//   - a glob: its current matches, nothing when there are none.
func (c *planCompiler) compilePublished(a Axis, p Pattern) error {
	granted, err := c.publishedAxis(a, p)
	if err != nil {
		return err
	}
	if a == Execute {
		// The launcher is given every execute entry as a read entry too
		// (its symlinks were judged on the execute axis).
		c.impliedRead = true
		read, err := c.publishedAxis(Read, p)
		c.impliedRead = false
		if err != nil {
			return err
		}
		granted = granted || read
	}
	if !granted && c.origin == OriginPolicy {
		c.warn(Warning{Code: WarnNoMatch, Axis: a.String(), Pattern: p.String(),
			Message: "grants nothing at launch (published semantics: no existing path or ancestor below \"/\" to put a rule on)"})
	}
	return nil
}

// publishedAxis adds the rules of p on axis a and reports whether any
// was added. A glob is expanded as the launcher's caller expands it
// (Python's glob.glob at launch): wildcards do not match a leading "."
// unless the segment starts with one, and a recursive glob keeps only
// the directories it matches.
func (c *planCompiler) publishedAxis(a Axis, p Pattern) (bool, error) {
	matches, err := c.exp.expandHidingDots(p)
	if err != nil {
		return false, err
	}
	if p.HasGlob() && p.Recursive() {
		matches = slices.DeleteFunc(matches, func(m string) bool { return !c.exp.isDir(m) })
	}
	if a == Write && p.Base() == "/" && c.origin == OriginPolicy {
		c.warn(Warning{Code: WarnWriteRoot, Loud: true, Axis: a.String(), Pattern: p.String(),
			Message: "grants write access to the whole file system: the sandbox then protects nothing from being modified"})
	}
	granted := false
	if len(matches) == 0 && !p.HasGlob() {
		named := p.Base()
		ok, err := c.publishedMissing(a, p, named, c.inResolvedDir(named))
		if err != nil {
			return false, err
		}
		granted = ok
	}
	for _, m := range matches {
		rp, st := c.resolve(m)
		var ok bool
		if st == nil {
			ok, err = c.publishedMissing(a, p, m, c.inResolvedDir(m))
		} else {
			ok, err = c.publishedExisting(a, p, m, rp, st)
		}
		if err != nil {
			return false, err
		}
		granted = ok || granted
	}
	return granted, nil
}

// publishedExisting adds the rules for the existing path rp (named m).
func (c *planCompiler) publishedExisting(a Axis, p Pattern, m, rp string, st fs.FileInfo) (bool, error) {
	dir := st.IsDir()
	switch {
	case a == Write && p.Recursive() && dir:
		return c.publishedRule(a, p, m, rp, rp, true, accessPublishedWrite)
	case a == Write:
		if _, err := c.publishedRule(a, p, m, rp, rp, dir, accessPublishedWriteFile); err != nil {
			return false, err
		}
		if _, err := c.publishedParent(a, p, m, c.inResolvedDir(m)); err != nil {
			return false, err
		}
		return true, nil
	case a == Read && dir:
		return c.publishedRule(a, p, m, rp, rp, true, accessReadDir)
	case a == Read:
		return c.publishedRule(a, p, m, rp, rp, false, accessReadFile)
	default:
		return c.publishedRule(a, p, m, rp, rp, dir, accessExec)
	}
}

// inResolvedDir returns the environment path m with its directory
// resolved but not its last component: the parent directory of a write
// target is the directory the name is in, even when the name is a
// symlink.
func (c *planCompiler) inResolvedDir(m string) string {
	if m == "/" {
		return m
	}
	return path.Join(c.root.Realpath(path.Dir(m)), path.Base(m))
}

// publishedMissing adds the rules for the missing path target (named
// m, or a dangling symlink): read gets its closest existing ancestor unless the pattern is
// recursive, write always does, execute gets nothing.
func (c *planCompiler) publishedMissing(a Axis, p Pattern, m, target string) (bool, error) {
	switch {
	case a == Write:
		return c.publishedParent(a, p, m, target)
	case a == Read && !p.Recursive():
		anc, _ := c.exp.nearestExisting(target)
		if anc == "/" {
			return false, nil
		}
		return c.publishedRule(a, p, m, target, anc, true, accessReadDir)
	}
	return false, nil
}

// publishedParent grants accessPublishedWrite on the closest existing
// ancestor of target, never on "/".
func (c *planCompiler) publishedParent(a Axis, p Pattern, m, target string) (bool, error) {
	anc, _ := c.exp.nearestExisting(target)
	if anc == "/" {
		if c.origin == OriginPolicy {
			c.warn(Warning{Code: WarnCreateAtRoot, Axis: a.String(), Pattern: p.String(),
				Message: fmt.Sprintf("the parent of %s is \"/\", which never receives write rights", target)})
		}
		return false, nil
	}
	return c.publishedRule(a, p, m, target, anc, true, accessPublishedWrite)
}

// publishedRule adds acc on rulePath for the policy pattern p that named
// m (resolving to target) and records where it is wider than p.
func (c *planCompiler) publishedRule(a Axis, p Pattern, m, target, rulePath string, dir bool, acc Access) (bool, error) {
	src := RuleSource{Origin: c.origin, Axis: a.String(), Pattern: p.String()}
	if m != rulePath {
		src.Match = m
	}
	c.rules.add(rulePath, dir, acc, src)
	if c.origin != OriginPolicy {
		return true, nil // the baseline's widenings are not the policy's
	}
	c.publishedWider(a, p, target, rulePath, dir, acc)
	if c.impliedRead {
		return true, nil
	}
	return true, c.checkLinks(a, p, m, target, rulePath, acc)
}

// publishedWider records where one published rule is wider than p.
func (c *planCompiler) publishedWider(a Axis, p Pattern, target, rulePath string, dir bool, acc Access) {
	if a == Execute {
		c.wider(Widening{Kind: WiderExecRead, Axis: a.String(), Pattern: p.String(), Path: rulePath, Extra: AccessReadFile,
			Detail: "a program must be readable to be run, so it may also be read"})
	}
	w := Widening{Axis: a.String(), Pattern: p.String(), Path: rulePath, Extra: acc}
	switch {
	case rulePath != target && a == Write:
		w.Kind = WiderParentDir
		w.Detail = fmt.Sprintf("to write %s, every file in %s may be listed, written, created (devices too), removed or moved", target, rulePath)
	case rulePath != target && a == Read:
		w.Kind = WiderReadAncestor
		w.Detail = fmt.Sprintf("%s does not exist: everything below %s may be read", target, rulePath)
	case a == Write && dir && p.Recursive():
		w.Kind, w.Extra = WiderRights, acc&^accessWriteDir
		w.Detail = fmt.Sprintf("%s may also be listed, and character and block devices created in it", rulePath)
	case dir && !p.Recursive():
		w.Kind = WiderDirectory
		w.Detail = fmt.Sprintf("%s is a directory: the rule covers everything below it, not only the directory", rulePath)
	default:
		return
	}
	c.wider(w)
}
