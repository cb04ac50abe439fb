package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/trial"
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
	failed := (!r.Utility || r.Exposed()) && r.Agent != runapi.AgentShortcut && r.Primary != trial.ClassAttackBlocked
	switch {
	case r.Attribution != nil || r.Error != "" || !failed:
		return nil, false
	case r.Source == SourceUnconstrained:
		return &trial.Attribution{Permissions: []string{}, Unattributable: "an unconstrained run has no policy to add to"}, true
	case r.Primary == trial.ClassSensitiveExposure:
		return &trial.Attribution{Permissions: []string{}, Unattributable: "the run exposed a sensitive file: no permission is missing"}, true
	case r.DecidingDenial == "":
		return &trial.Attribution{Permissions: []string{}, Unattributable: "no deciding denial (" + r.Primary + "): not a permission the policy lacked"}, true
	}
	return nil, true
}

// denialPermission turns a deciding denial ("op axis path") into the
// permission that grants it: the axis and the exact path.
func denialPermission(denial string) (policy.Axis, policy.Pattern, error) {
	parts := strings.SplitN(denial, " ", 3)
	if len(parts) != 3 {
		return 0, policy.Pattern{}, fmt.Errorf("deciding denial %q is not \"op axis path\"", denial)
	}
	ax, err := policy.ParseAxis(parts[1])
	if err != nil {
		return 0, policy.Pattern{}, fmt.Errorf("deciding denial %q: %w", denial, err)
	}
	p, err := policy.ParsePattern(parts[2])
	if err != nil {
		return 0, policy.Pattern{}, fmt.Errorf("deciding denial %q: %w", denial, err)
	}
	return ax, p, nil
}

// withPermission returns perms with p added on axis ax; added is false
// when it already held exactly p.
func withPermission(perms policy.Permissions, ax policy.Axis, p policy.Pattern) (policy.Permissions, bool) {
	var out policy.Permissions
	for _, a := range policy.Axes {
		out[a] = append([]policy.Pattern(nil), perms.Get(a)...)
	}
	for _, q := range out[ax] {
		if q.String() == p.String() {
			return out, false
		}
	}
	out[ax] = append(out[ax], p)
	return out, true
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

// attribute re-runs one failed run with its deciding denial's permission
// added, and again with each next deciding denial's, until a re-run
// passes or MaxAttributionRounds; then stores the run with its
// attribution.
func (b *bencher) attribute(ctx context.Context, r *trial.Record) error {
	if mark, _ := attributionStart(r); mark != nil {
		r.Attribution = mark
		return b.store.PutTrial(r, r.Started(), b.tasks[r.Task].Dir)
	}
	t := b.tasks[r.Task]
	perms, err := b.runPermissions(r)
	if err != nil {
		return fmt.Errorf("attribute run %s: %w", keyOf(r), err)
	}
	att := &trial.Attribution{Permissions: []string{}}
	started := time.Now()
	k := keyOf(r)
	denial := decidingFor(b.out, r.Dir, r.DecidingDenial, perms, t.Spec)
	for att.Rounds < trial.MaxAttributionRounds {
		ax, p, err := denialPermission(denial)
		if err != nil {
			att.Stop = err.Error()
			break
		}
		var added bool
		if perms, added = withPermission(perms, ax, p); !added && strings.HasPrefix(denial, "open write ") {
			// Held and still refused: an O_RDWR open needs the read right too.
			ax = policy.Read
			perms, added = withPermission(perms, ax, p)
		}
		if !added {
			att.Stop = fmt.Sprintf("the policy already holds %s %s and the re-run was still refused it", ax, p)
			break
		}
		att.Permissions = append(att.Permissions, ax.String()+" "+p.String())
		att.Rounds++
		doc, err := json.Marshal(&perms)
		if err != nil {
			return err
		}
		pol := &policy.Policy{Permissions: perms, Source: "attribution"}
		rp := runPolicy{source: runapi.SourcePolicy, doc: doc, pol: pol, valid: true}
		dir := path.Join(r.Dir, AttributionDir, fmt.Sprintf("round-%d", att.Rounds)) // under the out dir
		if err := b.out.RemoveAll(dir); err != nil {
			return err
		}
		if err := b.out.MkdirAll(dir); err != nil {
			return diskError(err)
		}
		rr := &trial.Record{Task: r.Task, Dataset: r.Dataset, Source: r.Source, Agent: r.Agent, Trial: r.Trial, Classes: []string{}}
		if err := b.execute(ctx, t, k, rp, dir, rr); err != nil {
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			att.Stop = "re-run could not be carried out: " + err.Error()
			break
		}
		if err := writeJSONFile(b.out, path.Join(dir, "record.json"), rr); err != nil {
			return diskError(err)
		}
		if rr.Utility && !rr.Exposed() {
			att.Confirmed = true
			break
		}
		if rr.DecidingDenial == "" {
			att.Stop = "the re-run failed with no deciding denial (" + rr.Primary + ")"
			break
		}
		denial = decidingFor(b.out, dir, rr.DecidingDenial, perms, t.Spec)
	}
	if !att.Confirmed && att.Stop == "" {
		att.Stop = fmt.Sprintf("still failing after %d re-runs (last denial %s)", att.Rounds, denial)
	}
	att.RerunS = time.Since(started).Seconds()
	r.Attribution = att
	b.o.Log.Info("attributed", zap.Stringer("run", k), zap.Strings("permissions", att.Permissions), zap.Bool("confirmed", att.Confirmed))
	return b.store.PutTrial(r, r.Started(), t.Dir)
}

// decidingFor picks the denial an attribution grants first, from the
// run's denials in dir/authbench/result.json under the out dir (in order of first
// occurrence): the first one on a path the task requires (a denial the
// classifier labels *_insufficient), else the run's deciding denial (the
// first in time, which may be one the agent recovers from: bash's
// /dev/tty).
func decidingFor(out *safefile.Dir, dir, deciding string, perms policy.Permissions, spec *policy.Spec) string {
	data, err := out.ReadFile(path.Join(dir, "authbench", runapi.FileResult))
	if err != nil {
		return deciding
	}
	var res runapi.TaskResult
	if json.Unmarshal(data, &res) != nil {
		return deciding
	}
	pol := &policy.Policy{Permissions: perms}
	for _, d := range res.Denials {
		if c := trial.DenialClass(d, pol, spec); c != trial.ClassWorkflowMismatch {
			return trial.FormatDenial(d)
		}
	}
	return deciding
}

// runPermissions is the policy a stored run ran under: its
// authbench/policy.json, or the task spec's required set for the spec
// source.
func (b *bencher) runPermissions(r *trial.Record) (policy.Permissions, error) {
	name := path.Join(r.Dir, "authbench", "policy.json")
	data, err := b.out.ReadFile(name)
	if err == nil {
		var spec *policy.Spec
		if t := b.tasks[r.Task]; t != nil {
			spec = t.Spec
		}
		pol, err := policy.ParsePolicyFor(data, b.out.Join(name), spec)
		if err != nil {
			return policy.Permissions{}, err
		}
		return pol.Permissions, nil
	}
	if r.Source == SourceSpec {
		return runapi.SpecPolicy(b.tasks[r.Task].Spec).Permissions, nil
	}
	return policy.Permissions{}, fmt.Errorf("the run's policy: %w", err)
}
