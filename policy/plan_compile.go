package policy

import (
	"fmt"
	"io/fs"
	"path"
)

// CompilePlan compiles pol plus a runtime baseline (and the sandbox
// essentials) into a Landlock rule plan against root:
//   - read: READ_FILE on each existing match, plus READ_DIR on
//     directories; "dir/**" is the directory; a glob is its current
//     matches;
//   - write: WRITE_FILE and TRUNCATE on files; on directories also the
//     MAKE_*, REMOVE_* and REFER rights (never MAKE_CHAR or MAKE_BLOCK);
//     IOCTL_DEV below /dev; a target that does not exist yet, and new
//     matches of a write glob, get creation rights on the nearest
//     existing ancestor directory, never on "/";
//   - execute: EXECUTE and READ_FILE.
//
// pol may be nil (a baseline-only plan). The plan records where it is
// wider than pol and warns about patterns that match nothing. CompilePlan
// is CompilePlanWith with the zero PlanOptions.
func CompilePlan(pol *Policy, base Baseline, root *Root) (*Plan, error) {
	return CompilePlanWith(pol, base, root, PlanOptions{})
}

// CompilePlanWith is CompilePlan with a choice of semantics for the
// policy's patterns (and a spec baseline's, Baseline.AsPolicy; the
// default baseline and the sandbox essentials are always precise) and of
// refusing symlinked targets. Errors: a pattern too broad
// to expand (ErrTooBroad), a pattern no kernel path can hold
// (ErrUnenforceablePattern), and with RefuseSymlinks a *SymlinkError;
// each names the layer, axis and index of the pattern.
func CompilePlanWith(pol *Policy, base Baseline, root *Root, opts PlanOptions) (*Plan, error) {
	sem, err := ParseSemantics(string(opts.Semantics))
	if err != nil {
		return nil, fmt.Errorf("compile plan: %w", err)
	}
	opts.Semantics = sem
	c := &planCompiler{root: root, exp: newExpander(root), rules: ruleSet{}, opts: opts, baseAsPolicy: base.AsPolicy,
		plan: &Plan{Root: root.Dir(), Baseline: base.Name, Semantics: sem}}
	if pol != nil {
		c.policy = pol.Permissions
	}
	layers := []struct {
		origin string
		perms  Permissions
	}{
		{OriginSandbox, SandboxEssentials()},
		{OriginBaseline, base.Permissions},
		{OriginPolicy, c.policy},
	}
	for _, l := range layers {
		for _, a := range Axes {
			for i, p := range l.perms.Get(a) {
				if err := c.compilePattern(l.origin, a, p); err != nil {
					return nil, fmt.Errorf("compile plan: %s %s[%d]: %w", l.origin, a, i, err)
				}
			}
		}
	}
	c.plan.Rules = c.rules.sorted()
	return c.plan, nil
}

// compilePattern checks that p can name kernel paths and adds its rules
// with the semantics of its layer.
func (c *planCompiler) compilePattern(origin string, a Axis, p Pattern) error {
	if err := checkKernelPath(p); err != nil {
		return fmt.Errorf("%q: %w", p.String(), err)
	}
	if c.runtimeMount(p) {
		c.compileRuntime(origin, a, p)
		return nil
	}
	if c.opts.Semantics == SemanticsPublished && (origin == OriginPolicy || origin == OriginBaseline && c.baseAsPolicy) {
		c.origin = origin
		return c.compilePublished(a, p)
	}
	return c.compile(origin, a, p)
}

type planCompiler struct {
	root   *Root
	exp    *expander
	rules  ruleSet
	plan   *Plan
	opts   PlanOptions
	policy Permissions // the policy's patterns (empty without a policy)
	// baseAsPolicy: the baseline is compiled with the policy's semantics
	// (Baseline.AsPolicy); origin is the layer compilePublished adds
	// rules for.
	baseAsPolicy bool
	origin       string
	// impliedRead: compilePublished is adding an execute pattern's read
	// rules (the launcher reads every execute entry too).
	impliedRead bool
}

// rightsFor returns what a pattern of axis a grants on an existing path.
func rightsFor(a Axis, dir bool, p string) Access {
	var acc Access
	switch a {
	case Read:
		acc = accessReadFile
		if dir {
			acc = accessReadDir
		}
	case Write:
		acc = accessWriteFile
		if dir {
			acc = accessWriteDir
		}
		if underDev(p) {
			acc |= AccessIoctlDev
		}
	case Execute:
		acc = accessExec
	}
	if !dir {
		acc &= AccessFileOnly
	}
	return acc
}

// compile adds the rules of one pattern.
func (c *planCompiler) compile(origin string, a Axis, p Pattern) error {
	matches, err := c.exp.expand(p)
	if err != nil {
		return err
	}
	ours := origin == OriginPolicy
	if ours && a == Write && p.Base() == "/" {
		c.warn(Warning{Code: WarnWriteRoot, Loud: true, Axis: a.String(), Pattern: p.String(),
			Message: "grants write access to the whole file system: the sandbox then protects nothing from being modified"})
	}
	granted := false
	for _, m := range matches {
		rp, st := c.resolve(m)
		if st == nil {
			// A dangling symlink: writing it creates its target.
			if a == Write && origin != OriginSandbox {
				ok, err := c.create(origin, a, p, m, rp, p.Recursive())
				if err != nil {
					return err
				}
				granted = ok || granted
			}
			continue
		}
		dir := st.IsDir()
		acc := rightsFor(a, dir, rp)
		src := RuleSource{Origin: origin, Axis: a.String(), Pattern: p.String()}
		if m != rp {
			src.Match = m
		}
		c.rules.add(rp, dir, acc, src)
		granted = true
		if ours {
			c.recordWider(a, p, rp, dir, acc)
			if err := c.checkLinks(a, p, m, rp, rp, acc); err != nil {
				return err
			}
		}
	}
	if a == Write && origin != OriginSandbox {
		ok, err := c.createNewMatches(origin, p, len(matches) > 0)
		if err != nil {
			return err
		}
		granted = ok || granted
	}
	if ours && (len(matches) == 0 && !(a == Write && p.IsExact()) || !granted) {
		msg := "matches no existing path: it grants nothing at launch"
		if granted {
			msg = "matches no existing path yet; only new files may be created (see wider)"
		}
		c.warn(Warning{Code: WarnNoMatch, Axis: a.String(), Pattern: p.String(), Message: msg})
	}
	return nil
}

// resolve returns the realpath of the existing path m and its Lstat
// information, nil when it does not exist (a dangling symlink). The
// directory's realpath is shared by its entries, so a rule costs one or
// two stat calls.
func (c *planCompiler) resolve(m string) (string, fs.FileInfo) {
	p := c.inResolvedDir(m)
	st := c.exp.lstat(m)
	if st == nil {
		return p, nil
	}
	if st.Mode()&fs.ModeSymlink == 0 {
		return p, st
	}
	rp := c.root.Realpath(m)
	if st = c.exp.lstat(rp); st == nil {
		return rp, nil
	}
	return rp, st
}

// recordWider notes where the rule for one policy match is wider than the
// pattern.
func (c *planCompiler) recordWider(a Axis, p Pattern, rp string, dir bool, acc Access) {
	if dir && !p.Recursive() {
		detail := fmt.Sprintf("%s is a directory: the rule covers everything below it, not only the directory", rp)
		if a == Write {
			detail = fmt.Sprintf("%s is a directory: every file below it may be written, created, removed or moved", rp)
		}
		c.wider(Widening{Kind: WiderDirectory, Axis: a.String(), Pattern: p.String(), Path: rp, Extra: acc, Detail: detail})
	}
	if a == Execute {
		c.wider(Widening{Kind: WiderExecRead, Axis: a.String(), Pattern: p.String(), Path: rp, Extra: AccessReadFile,
			Detail: "a program must be readable to be run, so it may also be read"})
	}
}

// createNewMatches grants creation rights where new paths matching a write
// pattern would appear: for an exact pattern that matched nothing, on the
// nearest existing ancestor; for a glob, in every existing directory
// matching the pattern's parent (or the nearest existing ancestor of a
// literal parent).
func (c *planCompiler) createNewMatches(origin string, p Pattern, matched bool) (bool, error) {
	if !p.HasGlob() {
		if matched {
			return false, nil
		}
		return c.create(origin, Write, p, p.Base(), c.root.Realpath(p.Base()), p.Recursive())
	}
	parent := path.Dir(p.Base())
	pp, err := ParsePattern(parent)
	if err != nil {
		return false, nil
	}
	if !pp.HasGlob() {
		return c.create(origin, Write, p, path.Join(parent, "*"), path.Join(c.root.Realpath(parent), "*"), p.Recursive())
	}
	dirs, err := c.exp.expand(pp)
	if err != nil {
		return false, nil
	}
	granted := false
	for _, d := range dirs {
		if c.exp.isDir(d) {
			ok, err := c.create(origin, Write, p, path.Join(d, "*"), path.Join(c.root.Realpath(d), "*"), p.Recursive())
			if err != nil {
				return false, err
			}
			granted = ok || granted
		}
	}
	return granted, nil
}

// create grants the rights to create target (a path that may not exist;
// named is how the pattern reached it) on its nearest existing ancestor
// directory. It never grants them on "/" and reports whether a rule was
// added.
func (c *planCompiler) create(origin string, a Axis, p Pattern, named, target string, recursive bool) (bool, error) {
	anc, missingDirs := c.exp.nearestExisting(target)
	ours := origin == OriginPolicy
	if anc == "/" {
		if ours {
			c.warn(Warning{Code: WarnCreateAtRoot, Axis: a.String(), Pattern: p.String(),
				Message: fmt.Sprintf("%s cannot be created: its nearest existing ancestor is \"/\", which never receives creation rights", target)})
		}
		return false, nil
	}
	acc := accessCreate
	if !missingDirs && !recursive {
		acc &^= AccessMakeDir
	}
	if recursive {
		acc = accessWriteDir
	}
	if underDev(anc) {
		acc |= AccessIoctlDev
	}
	c.rules.add(anc, true, acc, RuleSource{Origin: origin, Axis: a.String(), Pattern: p.String(), Match: target})
	if ours {
		c.wider(Widening{Kind: WiderCreate, Axis: a.String(), Pattern: p.String(), Path: anc, Extra: acc,
			Detail: fmt.Sprintf("to create %s, any new file below %s may be created, and every existing file below it written", target, anc)})
		if err := c.checkLinks(a, p, named, target, anc, acc); err != nil {
			return false, err
		}
	}
	return true, nil
}

func (c *planCompiler) warn(w Warning)   { c.plan.Warnings = append(c.plan.Warnings, w) }
func (c *planCompiler) wider(w Widening) { c.plan.Wider = append(c.plan.Wider, w) }
