package taskrun

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tracer/trace"
)

// finishResult classifies the run where it happened (its failure
// classes, primary class and deciding denial: runapi.TaskResult.Classify
// under the policy the run enforced) and saves the result as
// dir/result.json.
func (r *runner) finishResult(dir string) error {
	var pol *policy.Policy
	if r.res.Error == "" && r.Options.Task.Spec != nil {
		// A run whose policy could not be had failed on it (Error): an
		// error has no class.
		pol, _ = r.runPolicy()
	}
	r.res.Classification = r.res.Classify(pol, r.Options.Task.Spec)
	return writeResult(r.res, dir)
}

// writeResult saves the result as dir/result.json.
func writeResult(r *runapi.TaskResult, dir string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, runapi.FileResult), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write result: %w", err)
	}
	return nil
}

// fileID is a file's identity: st_dev and st_ino.
type fileID struct{ dev, ino uint64 }

// maxSensitiveIndex bounds the files indexed by identity per run.
const maxSensitiveIndex = 20000

// sensitiveMatcher finds sensitive accesses in events. A file counts as
// sensitive when its real path, or the name as given resolved in the
// root at the time of the event, matches a pattern of the axis, or when
// its identity (dev, ino) is that of a file matching one: a hard link.
type sensitiveMatcher struct {
	patterns *policy.Permissions
	root     *policy.Root // nil: paths are matched as they are
	byID     map[policy.Axis]map[fileID]string
	seen     map[runapi.SensitiveAccess]bool
	found    []runapi.SensitiveAccess
}

func newSensitiveMatcher(spec *policy.Spec, root *policy.Root) *sensitiveMatcher {
	m := &sensitiveMatcher{patterns: spec.Sensitive, root: root, seen: map[runapi.SensitiveAccess]bool{},
		byID: map[policy.Axis]map[fileID]string{}}
	m.indexExisting()
	return m
}

// indexExisting records the identity of the files matching each pattern
// (glob bases expanded by policy.ExpandBase, the plan's expander) before
// the run (bounded), so hard links made to them are recognised.
func (m *sensitiveMatcher) indexExisting() {
	if m.patterns == nil || m.root == nil {
		return
	}
	n := 0
	for _, a := range policy.Axes {
		for _, p := range m.patterns.Get(a) {
			// The base's matches (a glob base has several), each walked
			// below it for a recursive pattern.
			matches, _ := policy.ExpandBase(m.root, p)
			for _, match := range matches {
				base := m.root.HostPath(m.root.RealpathNow(match))
				_ = filepath.WalkDir(base, func(host string, d fs.DirEntry, err error) error {
					if err != nil || n >= maxSensitiveIndex {
						return fs.SkipAll
					}
					n++
					env := match + strings.TrimPrefix(host, base)
					if d.Type().IsRegular() && p.Match(env) {
						if info, err := d.Info(); err == nil {
							if st, ok := info.Sys().(*syscall.Stat_t); ok {
								m.remember(a, fileID{st.Dev, st.Ino}, p.String())
							}
						}
					}
					return nil
				})
			}
		}
	}
}

func (m *sensitiveMatcher) remember(a policy.Axis, id fileID, pattern string) {
	if m.byID[a] == nil {
		m.byID[a] = map[fileID]string{}
	}
	if len(m.byID[a]) < maxSensitiveIndex {
		m.byID[a][id] = pattern
	}
}

// observe records a successful operation whose file is sensitive on the
// operation's axis; an O_PATH open is none (Event.PathOnly: the openat2
// agent opens every rule's path so while it builds the tree's ruleset).
func (m *sensitiveMatcher) observe(ev *trace.Event) {
	if m.patterns == nil || ev.Failed() || ev.Axis == trace.AxisNone || ev.Op == trace.OpFork || ev.Op == trace.OpExit || ev.PathOnly() {
		return
	}
	a, err := policy.ParseAxis(string(ev.Axis))
	if err != nil {
		return
	}
	target := ev.Real
	if target == "" && ev.Path != "" && m.root != nil {
		target = m.root.RealpathNow(ev.Target())
	} else if target == "" {
		target = ev.Path
	}
	id := fileID{ev.Dev, ev.Ino}
	for _, p := range m.patterns.Get(a) {
		if target != "" && p.Match(target) {
			if ev.Ino != 0 {
				m.remember(a, id, p.String())
			}
			m.add(ev, a, target, p.String())
			return
		}
	}
	if ev.Ino != 0 {
		if pattern, ok := m.byID[a][id]; ok {
			m.add(ev, a, target, pattern)
			return
		}
	}
	for _, file := range m.alsoExecuted(ev, target) {
		for _, p := range m.patterns.Get(a) {
			if p.Match(file) {
				m.add(ev, a, file, p.String())
				return
			}
		}
	}
}

// alsoExecuted are, for an exec, the files it ran besides its kernel
// file (target): the name as given resolved in the tree now (a #! script
// when the tracer names the interpreter) and the script's interpreter.
// Executing a script runs both it and its interpreter.
func (m *sensitiveMatcher) alsoExecuted(ev *trace.Event, target string) []string {
	if ev.Op != trace.OpExec {
		return nil
	}
	var out []string
	for _, p := range []string{ev.Path, ev.Interp} {
		if p == "" {
			continue
		}
		if m.root != nil {
			p = m.root.RealpathNow(p)
		}
		if p != target {
			out = append(out, p)
		}
	}
	return out
}

func (m *sensitiveMatcher) add(ev *trace.Event, a policy.Axis, target, pattern string) {
	sa := runapi.SensitiveAccess{Op: string(ev.Op), Axis: a, Path: target, Pattern: pattern}
	if ev.Path != target {
		sa.Via = ev.Path
	}
	if !m.seen[sa] {
		m.seen[sa] = true
		m.found = append(m.found, sa)
	}
}
