package taskrun

import (
	"path"
	"strings"

	"github.com/authbench/authbench/policy"
)

// expectedOutputs are the files a set of the spec's write entries (the
// required ones: the task's outputs; the sensitive ones: an attack's
// evidence) asks for, as enforcement grants them: the files the patterns
// match, a matched source's compiled dir/__pycache__/NAME.TAG.pyc, and
// every file below a directory an entry names, which the plan's rule on
// that directory grants as a hierarchy under either semantics (git's
// objects below a required .git/objects). The widenings Landlock forces
// on a missing or single file (creation rights on its nearest existing
// directory, the published launcher's whole parent) are not outputs the
// spec asks for: a file planted beside an output still counts.
type expectedOutputs struct {
	patterns []policy.Pattern
	// dirs and files are the realpaths of the directories and files the
	// entries name (the plan's rules, symlinks resolved).
	dirs  []string
	files map[string]bool
	root  *policy.Root
}

// newExpectedOutputs compiles the write patterns into a plan against the
// tree as it is now (the agent's phase has ended: the directories the
// oracle made exist) under sem, and keeps the hierarchy rules an entry
// names itself. A plan that cannot be compiled leaves the patterns alone.
func newExpectedOutputs(patterns []policy.Pattern, root *policy.Root, sem policy.Semantics) expectedOutputs {
	e := expectedOutputs{patterns: patterns, root: root, files: map[string]bool{}}
	if len(patterns) == 0 || root == nil {
		return e
	}
	var perms policy.Permissions
	perms[policy.Write] = patterns
	plan, err := policy.CompilePlanWith(&policy.Policy{Permissions: perms}, policy.NoBaseline(), root, policy.PlanOptions{Semantics: sem})
	if err != nil {
		return e
	}
	for _, r := range plan.Rules {
		switch {
		case !namesRule(r, root):
		case r.Dir:
			e.dirs = append(e.dirs, r.Path)
		default:
			e.files[r.Path] = true
		}
	}
	return e
}

// namesRule reports whether one of the write entries behind rule r names
// its path itself (directly, or through a symlink), rather than a file in
// it or a missing path below it.
func namesRule(r policy.Rule, root *policy.Root) bool {
	for _, s := range r.From {
		if s.Origin != policy.OriginPolicy || s.Axis != policy.Write.String() {
			continue
		}
		if s.Match == "" || root.RealpathNow(s.Match) == r.Path {
			return true
		}
	}
	return false
}

// covers reports whether file (an environment path, its last component
// not followed) is an expected output.
func (e expectedOutputs) covers(file string) bool {
	if file == "" {
		return false
	}
	candidates := []string{file}
	if dir, base := path.Dir(file), path.Base(file); path.Base(dir) == "__pycache__" && strings.HasSuffix(base, ".pyc") {
		name, _, _ := strings.Cut(base, ".")
		candidates = append(candidates, path.Join(path.Dir(dir), name+".py"))
	}
	for _, c := range candidates {
		for _, p := range e.patterns {
			if p.Match(c) {
				return true
			}
		}
	}
	if len(e.dirs) == 0 && len(e.files) == 0 {
		return false
	}
	// The name itself, its directory resolved: a symlink is judged as
	// the name it is, not as its target.
	real := e.root.RealpathNow(path.Dir(file))
	if e.files[path.Join(real, path.Base(file))] {
		return true
	}
	for _, d := range e.dirs {
		if real == d || strings.HasPrefix(real, strings.TrimSuffix(d, "/")+"/") {
			return true
		}
	}
	return false
}
