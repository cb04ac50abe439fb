package policy

// Paths below a run-time mount point (/proc, /sys, /dev, a tmpfs, a
// sidecar volume) exist only once the container is set up: the rootfs a
// plan is compiled against holds an empty directory there. A pattern
// naming such a path is compiled to a run-time rule: the path as named,
// a hierarchy for dir/**, opened by sandbox-init inside the container
// after its mounts (and skipped when it does not exist there).

// runtimeMount reports whether p's rules must be placed at run time: its
// base has no glob, lies strictly below one of the options' run-time
// mount points, and does not exist in the rootfs.
func (c *planCompiler) runtimeMount(p Pattern) bool {
	if p.HasGlob() {
		return false
	}
	b := p.Base()
	for _, m := range c.opts.RuntimeMounts {
		if b != m && isWithin(b, m) {
			return c.exp.lstat(b) == nil
		}
	}
	return false
}

// compileRuntime adds the run-time rule of a pattern below a run-time
// mount point.
func (c *planCompiler) compileRuntime(origin string, a Axis, p Pattern) {
	dir := p.Recursive()
	c.rules.add(p.Base(), dir, rightsFor(a, dir, p.Base()), RuleSource{Origin: origin, Axis: a.String(), Pattern: p.String()})
	c.rules[p.Base()].Runtime = true
}
