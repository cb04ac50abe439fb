package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"go.uber.org/zap"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
	"github.com/authbench/authbench/tracer/trace"
	"github.com/authbench/authbench/trial"
	"github.com/authbench/authbench/verdict"
)

// AttributionDir is where a run's re-runs are kept, below its directory
// (AttributionDir/round-N, the files of a run).
const AttributionDir = "attribution"

// attributionStart decides what attribution a stored run needs: none
// (ok false: not a failure, a run error, already attributed), an
// unattributable mark (no re-run), or re-runs from its deciding denial.
func attributionStart(r *trial.Record) (mark *trial.Attribution, ok bool) {
	// The shortcut's runs are not the agent's work: a blocked attack is
	// no failure, and an exposure is no missing permission.
	failed := (!r.Utility || r.Exposed()) && r.Agent != runapi.AgentShortcut && r.Primary != verdict.ClassAttackBlocked
	switch {
	case r.Attribution != nil || r.Error != "" || !failed:
		return nil, false
	case r.Source == runapi.SourceUnconstrained:
		return &trial.Attribution{Permissions: []string{}, Unattributable: "an unconstrained run has no policy to add to"}, true
	case r.Requests != nil && r.Requests.Attempts > 1:
		// Its record is the requester's last attempt (requester.go); its
		// granted requests are what the first attempt lacked.
		return &trial.Attribution{Permissions: []string{}, Unattributable: "the requester re-ran it with granted requests (" + RequestsFile + ")"}, true
	case r.Primary == verdict.ClassSensitiveExposure:
		return &trial.Attribution{Permissions: []string{}, Unattributable: "the run exposed a sensitive file: no permission is missing"}, true
	case r.DecidingDenial == "":
		return &trial.Attribution{Permissions: []string{}, Unattributable: "no deciding denial (" + string(r.Primary) + "): not a permission the policy lacked"}, true
	}
	return nil, true
}

// attributeAll attributes every stored failed run that has no
// attribution yet, cfg.Parallel at a time; each is stored again with its
// attribution (a bench resumed later skips it).
func (b *bencher) attributeAll(ctx context.Context) error {
	recs, err := b.store.Records()
	if err != nil {
		return err
	}
	work := make(chan *trial.Record)
	errs := make(chan error, len(recs))
	var wg sync.WaitGroup
	for i := 0; i < b.cfg.Parallel; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range work {
				if err := b.attribute(ctx, r); err != nil {
					errs <- err
				}
			}
		}()
	}
	for i := range recs {
		if _, ok := attributionStart(&recs[i]); ok && b.tasks[recs[i].Task] != nil {
			work <- &recs[i]
		}
	}
	close(work)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	return ctx.Err()
}

// grant is one permission an attribution adds: an entry on an axis
// (policy.AllAxes: a path pattern on a file axis, a host pattern on the
// network axis), written "axis entry".
type grant struct {
	axis  policy.Axis
	entry string
}

func (g grant) String() string { return g.axis.String() + " " + g.entry }

// denialGrant is the grant of the file (or destination) a denial
// reached; ok is false for a denial on no axis (a capability's).
func denialGrant(d audit.Denial) (g grant, ok bool) {
	ax, err := policy.ParseAnyAxis(string(d.Axis))
	if err != nil {
		return grant{}, false
	}
	return grant{ax, denialNames(d)[len(denialNames(d))-1]}, true
}

// withGrant returns pol with g added (pol is not changed); added is false
// when pol already held exactly g.
func withGrant(pol *policy.Policy, g grant) (*policy.Policy, bool, error) {
	out := &policy.Policy{Network: slices.Clone(pol.Network), Source: "attribution"}
	for _, a := range policy.Axes {
		out.Permissions[a] = slices.Clone(pol.Permissions.Get(a))
	}
	if g.axis == policy.Network {
		h, err := policy.ParseHostPattern(g.entry)
		if err != nil {
			return nil, false, fmt.Errorf("network permission %q: %w", g.entry, err)
		}
		for _, q := range out.Network {
			if q.String() == h.String() {
				return out, false, nil
			}
		}
		out.Network = append(out.Network, h)
		return out, true, nil
	}
	ax := g.axis
	if ax < 0 || int(ax) >= len(policy.Axes) {
		return nil, false, fmt.Errorf("permission %s: no axis of a policy", g)
	}
	p, err := policy.ParsePattern(g.entry)
	if err != nil {
		return nil, false, fmt.Errorf("permission %s: %w", g, err)
	}
	for _, q := range out.Permissions[ax] {
		if q.String() == p.String() {
			return out, false, nil
		}
	}
	out.Permissions[ax] = append(out.Permissions[ax], p)
	return out, true, nil
}

// withGrants adds gs to pol in order and returns the grants pol did not
// hold yet.
func withGrants(pol *policy.Policy, gs []grant) (*policy.Policy, []grant, error) {
	var added []grant
	for _, g := range gs {
		next, ok, err := withGrant(pol, g)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			pol = next
			added = append(added, g)
		}
	}
	return pol, added, nil
}

// roundGrants is what the next re-run adds to pol, from the denials of
// the run it follows (first-seen order, mapped-exec entries left out) and
// that run's deciding denial:
//   - the permission of every denial the classifier labels
//     *_insufficient (a path the task requires that pol does not grant),
//     on the file it reached (its real path);
//   - for each refused exec of a program pol grants or the task requires
//     (or of the interpreter of a script pol grants: the denial's Path2),
//     the interpreters of the "#!" script (interp: real paths, from the
//     task image) that pol lacks on execute — the kernel refuses a
//     script's exec when its interpreter may not run;
//   - when neither adds anything, the deciding denial's permission (a
//     held write of a refused O_RDWR open: read).
//
// A denial on a path the spec's sensitive_permissions cover is never
// granted. Empty: nothing new would change the re-run.
func roundGrants(denials []audit.Denial, deciding string, pol *policy.Policy, spec *policy.Spec, interp func(string) []string) []grant {
	var out []grant
	seen := map[grant]bool{}
	add := func(g grant) {
		if seen[g] || sensitiveGrant(g, spec) {
			return
		}
		if _, ok, err := withGrant(pol, g); err != nil || !ok {
			return
		}
		seen[g] = true
		out = append(out, g)
	}
	interpreters := func(d audit.Denial) {
		if interp == nil || d.Op != "exec" || d.Axis != trace.AxisExecute {
			return
		}
		// The program, and a script whose refused interpreter the
		// denial names (its Path2: /usr/bin/env of "#!/usr/bin/env
		// python3", whose python3 is refused next).
		for _, prog := range append(denialNames(d), d.Path2) {
			if prog == "" {
				continue
			}
			for _, i := range interp(prog) {
				if !matchesAny(pol.Get(policy.Execute), []string{i}) {
					add(grant{policy.Execute, i})
				}
			}
		}
	}
	for _, d := range denials {
		if audit.IsCapabilityDenial(d) {
			continue
		}
		if verdict.DenialClass(d, pol, spec) != verdict.ClassWorkflowMismatch {
			// The file reached (/usr/bin/git for /bin/git): one grant for
			// the names a program was refused by.
			if g, ok := denialGrant(d); ok {
				add(g)
			}
			interpreters(d)
			continue
		}
		if ax, err := policy.ParseAxis(string(d.Axis)); err == nil && ax == policy.Execute &&
			matchesAny(pol.Get(ax), append(denialNames(d), d.Path2)) {
			interpreters(d) // a held script refused: its interpreter is what is missing
		}
	}
	if len(out) > 0 {
		return out
	}
	parts := strings.SplitN(deciding, " ", 3)
	if len(parts) != 3 {
		return nil
	}
	ax, err := policy.ParseAnyAxis(parts[1])
	if err != nil {
		return nil
	}
	g := grant{ax, parts[2]}
	if _, ok, _ := withGrant(pol, g); !ok && parts[0] == "open" && ax == policy.Write {
		// Held and still refused: an O_RDWR open needs the read right too.
		g.axis = policy.Read
	}
	add(g)
	return out
}

// matchesAny: one of patterns matches one of paths.
func matchesAny(patterns []policy.Pattern, paths []string) bool {
	for _, p := range patterns {
		for _, n := range paths {
			if n != "" && p.Match(n) {
				return true
			}
		}
	}
	return false
}

// denialNames are the names of a denied file: the path used and its real
// path.
func denialNames(d audit.Denial) []string {
	if d.Real != "" {
		return []string{d.Path, d.Real}
	}
	return []string{d.Path}
}

// sensitiveGrant: g is on a path (or host) the spec's
// sensitive_permissions cover; an attribution never grants it.
func sensitiveGrant(g grant, spec *policy.Spec) bool {
	if spec == nil {
		return false
	}
	if g.axis == policy.Network {
		_, ok := spec.Network.SensitiveTarget(g.entry)
		return ok
	}
	ax := g.axis
	if spec.Sensitive == nil {
		return false
	}
	p, err := policy.ParsePattern(g.entry)
	if err != nil {
		return false
	}
	for _, s := range spec.Sensitive.Get(ax) {
		if s.Match(p.Base()) || p.Match(s.Base()) {
			return true
		}
	}
	return false
}

// requiredGrants are the entries of the task's required_permissions (the
// file axes) that pol does not hold as written, in the spec's order.
func requiredGrants(pol *policy.Policy, spec *policy.Spec) []grant {
	if spec == nil {
		return nil
	}
	var gs []grant
	for _, ax := range policy.Axes {
		for _, p := range spec.Required.Get(ax) {
			gs = append(gs, grant{ax, p.String()})
		}
	}
	_, missing, err := withGrants(pol, gs)
	if err != nil {
		return nil
	}
	return missing
}

// usedGrants keeps of added the grants a successful traced operation of
// the run (events, in order) used on a name before does not grant: an
// entry no such access matched did not make the run pass.
func usedGrants(events []trace.Event, added []grant, before *policy.Policy) []grant {
	used := map[grant]bool{}
	for i := range events {
		e := &events[i]
		if e.Ret < 0 || e.Axis == trace.AxisNone {
			continue
		}
		names := []string{e.Path, e.Real, e.Path2, e.Interp}
		ax, err := policy.ParseAxis(string(e.Axis))
		if err != nil {
			continue
		}
		for _, n := range names {
			if n == "" || !strings.HasPrefix(n, "/") || matchesAny(before.Get(ax), []string{n}) {
				continue
			}
			for _, g := range added {
				if g.axis != ax || used[g] {
					continue
				}
				if p, err := policy.ParsePattern(g.entry); err == nil && p.Match(n) {
					used[g] = true
				}
			}
		}
	}
	var out []grant
	for _, g := range added {
		if used[g] || g.axis == policy.Network {
			out = append(out, g)
		}
	}
	return out
}

// runDenials are the denials of the run in dir (under the out dir), from
// its authbench/result.json, mapped-exec entries left out; nil when it
// cannot be read.
func runDenials(out *safefile.Dir, dir string) []audit.Denial {
	data, err := out.ReadFile(path.Join(dir, "authbench", runapi.FileResult))
	if err != nil {
		return nil
	}
	var res runapi.TaskResult
	if json.Unmarshal(data, &res) != nil {
		return nil
	}
	var denials []audit.Denial
	for _, d := range res.Denials {
		if d.Op != audit.OpExecViaMmap {
			denials = append(denials, d)
		}
	}
	return denials
}

// runEvents are the traced events of the run in dir (under the out dir).
func runEvents(out *safefile.Dir, dir string) ([]trace.Event, error) {
	data, err := out.ReadFile(path.Join(dir, "authbench", runapi.FileEvents))
	if err != nil {
		return nil, err
	}
	var evs []trace.Event
	_, err = audit.ReadLog(bytes.NewReader(data), func(e *trace.Event) error {
		evs = append(evs, *e)
		return nil
	})
	return evs, err
}

func appendGrants(list []string, gs []grant) []string {
	for _, g := range gs {
		list = append(list, g.String())
	}
	return list
}

// interpreters returns the function that names the interpreters of a
// "#!" script of the task's image (policy.Root.ScriptInterpreters), or nil
// when the image's root filesystem is not at hand.
func (b *bencher) interpreters(ctx context.Context, t *tasks.Task) func(string) []string {
	if b.o.ImageRoot == nil {
		return nil
	}
	root, err := b.imageRoot(ctx, t)
	if err != nil {
		b.o.Log.Warn("attribution without the task image: the interpreters of refused scripts are not looked up", zap.String("task", t.Name), zap.Error(err))
		return nil
	}
	return func(prog string) []string { return root.ScriptInterpreters(prog, policy.DefaultPath) }
}

// imageRoot is the root filesystem of the task's image (Options.ImageRoot),
// looked up once per task.
func (b *bencher) imageRoot(ctx context.Context, t *tasks.Task) (*policy.Root, error) {
	b.rootsMu.Lock()
	defer b.rootsMu.Unlock()
	if root, ok := b.roots[t.Name]; ok {
		return root, nil
	}
	root, err := b.o.ImageRoot(ctx, t)
	if err != nil {
		return nil, err
	}
	if b.roots == nil {
		b.roots = map[string]*policy.Root{}
	}
	b.roots[t.Name] = root
	return root, nil
}

// runPolicy is the policy a stored run ran under: its
// authbench/policy.json, or the task spec's required set for the spec
// source.
func (b *bencher) runPolicy(r *trial.Record) (*policy.Policy, error) {
	name := path.Join(r.Dir, "authbench", "policy.json")
	data, err := b.out.ReadFile(name)
	if err == nil {
		var spec *policy.Spec
		if t := b.tasks[r.Task]; t != nil {
			spec = t.Spec
		}
		return policy.ParsePolicyFor(data, b.out.Join(name), spec)
	}
	if r.Source == runapi.SourceSpec {
		return runapi.SpecPolicy(b.tasks[r.Task].Spec), nil
	}
	return nil, fmt.Errorf("the run's policy: %w", err)
}
