package formats

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/authbench/authbench/policy"
)

// mount is one path of a path-hierarchy format: a file, or a directory
// and everything below it.
type mount struct {
	Path  string
	Dir   bool
	Write bool // writing, creating and removing below it
	Exec  bool // executing
}

// mountSet is a policy compiled for a path-hierarchy format: its paths,
// parents before children, and what the compilation widened or narrowed.
type mountSet struct {
	mounts []mount
	// links are the symbolic links on the way to the policy's paths that
	// no mounted directory holds (/lib64 -> usr/lib64): a format that
	// builds a new root (bwrap) makes them there.
	links    []symlink
	warnings []Warning
}

// symlink is a link at Link whose target is Target, as written.
type symlink struct{ Link, Target string }

// writeRights are the rights that make a path writable in such a format.
const writeRights = policy.AccessWriteFile | policy.AccessMakeReg | policy.AccessMakeDir |
	policy.AccessRemoveFile | policy.AccessRemoveDir | policy.AccessTruncate

// mountsOf compiles pol (with the baseline) against the root and turns
// each Landlock rule into a mount.
func mountsOf(pol *policy.Policy, opts ExportOptions) (*mountSet, error) {
	if opts.Root == nil {
		return nil, fmt.Errorf("a path-hierarchy format needs the root the policy is for")
	}
	base := opts.Baseline
	if base.Name == "" {
		base = policy.NoBaseline()
	}
	plan, err := policy.CompilePlan(pol, base, opts.Root)
	if err != nil {
		return nil, err
	}
	ms := &mountSet{}
	for _, r := range plan.Rules {
		if r.Access&(policy.AccessReadFile|policy.AccessReadDir|policy.AccessExecute|writeRights) == 0 {
			continue
		}
		ms.mounts = append(ms.mounts, mount{Path: r.Path, Dir: r.Dir, Write: r.Access&writeRights != 0, Exec: r.Access.Has(policy.AccessExecute)})
	}
	sort.Slice(ms.mounts, func(i, j int) bool { return ms.mounts[i].Path < ms.mounts[j].Path })
	ms.links = linksOf(plan, opts.Root, ms.mounts)
	for _, w := range plan.Wider {
		ms.warnings = append(ms.warnings, Warning{Axis: w.Axis, Entry: w.Pattern, Effect: Wider,
			Message: fmt.Sprintf("%s: %s gets %s (%s)", w.Kind, w.Path, w.Extra, "as Landlock enforcement would")})
	}
	for _, w := range plan.Warnings {
		ms.warnings = append(ms.warnings, Warning{Axis: w.Axis, Entry: w.Pattern, Effect: Same, Message: w.Message})
	}
	for _, a := range policy.Axes {
		for _, p := range pol.Get(a) {
			if p.HasGlob() {
				ms.warnings = append(ms.warnings, Warning{Axis: a.String(), Entry: p.String(), Effect: Narrower,
					Message: "a glob is exported as the paths it matches now: files made later that match it are not covered"})
			}
		}
	}
	return ms, nil
}

// linksOf finds the symbolic links on the way to every path the plan's
// patterns named, following each link's target in turn, and keeps those
// that no mounted directory holds.
func linksOf(plan *policy.Plan, root *policy.Root, mounts []mount) []symlink {
	found := map[string]string{}
	for _, r := range plan.Rules {
		for _, src := range r.From {
			for _, p := range []string{src.Match, literalPrefix(strings.TrimSuffix(src.Pattern, "/**"))} {
				if p != "" {
					walkLinks(root, p, found)
				}
			}
		}
	}
	var out []symlink
	for link, target := range found {
		if !underMountedDir(link, mounts) {
			out = append(out, symlink{Link: link, Target: target})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Link < out[j].Link })
	return out
}

// walkLinks records the links on the way to p (at most 40, as the kernel
// follows).
func walkLinks(root *policy.Root, p string, found map[string]string) {
	rest := strings.Split(strings.Trim(path.Clean(p), "/"), "/")
	cur := "/"
	for hops := 0; len(rest) > 0 && hops < 40; {
		next := path.Join(cur, rest[0])
		rest = rest[1:]
		fi, err := root.Lstat(next)
		if err != nil {
			return
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		target, err := os.Readlink(root.HostPath(next))
		if err != nil {
			return
		}
		hops++
		found[next] = target
		if !path.IsAbs(target) {
			target = path.Join(cur, target)
		}
		rest = append(strings.Split(strings.Trim(path.Clean(target), "/"), "/"), rest...)
		cur = "/"
	}
}

func underMountedDir(p string, mounts []mount) bool {
	for _, m := range mounts {
		if m.Dir && strings.HasPrefix(p, m.Path+"/") {
			return true
		}
	}
	return false
}

// hostEntries are the policy's network entries as text.
func hostEntries(pol *policy.Policy) []string { return policy.HostStrings(pol.Network) }
