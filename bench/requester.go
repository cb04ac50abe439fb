package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/permreq"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
	"github.com/authbench/authbench/trial"
	"github.com/authbench/authbench/verdict"
)

// RequestDir is where the requester keeps a run's later attempts, below
// its directory (RequestDir/request-N: the attempt after the N-th granted
// request, the files of a run); RequestsFile, in the run's directory, is
// every request and attempt.
const (
	RequestDir   = "requests"
	RequestsFile = "requests.json"
)

// requesterAgent: agent is one whose requests the bench makes itself
// (the requester): the oracle and the shortcut run fixed scripts that
// cannot ask, so under --requests the bench asks on their behalf for what
// the deciding denial of a refused run names, and re-runs.
func requesterAgent(agent string) bool {
	return agent == runapi.AgentOracle || agent == runapi.AgentShortcut
}

// checkRequester checks what the requester needs beyond the config: the
// task images at hand (a request is compiled against the task's root, as
// a run's are).
func (c *Config) checkRequester(o Options) error {
	if c.Requests == "" || !requesterAgent(c.Agent) || o.ImageRoot != nil {
		return nil
	}
	return fmt.Errorf("bench: --requests with agent %s: the bench makes the oracle's requests itself and compiles them against the task image, which only an embedded bench has (--socket \"\")", c.Agent)
}

// RequestAttempt is one run of a task by the requester: its directory
// (under the out dir), outcome and deciding denial.
type RequestAttempt struct {
	Dir            string        `json:"dir"`
	Utility        bool          `json:"utility"`
	Primary        verdict.Class `json:"primary_class,omitempty"`
	DecidingDenial string        `json:"deciding_denial,omitempty"`
	Error          string        `json:"error,omitempty"`
}

// RequestLog is a requester run's RequestsFile: the decider, every
// attempt in order (the first is the run itself), every request with its
// answer, and why the requester stopped.
type RequestLog struct {
	Decider   string                     `json:"decider"`
	Attempts  []RequestAttempt           `json:"attempts"`
	Requests  []runapi.PermissionRequest `json:"permission_requests"`
	OverLimit int                        `json:"permission_requests_over_limit"`
	Stop      string                     `json:"stop"`
}

// requester is one run's requests under way.
type requester struct {
	b    *bencher
	t    *tasks.Task
	r    *trial.Record
	desk *permreq.Desk
	pol  *policy.Policy
	log  RequestLog
	// granted are the requests granted so far ("axis path"); used, by
	// request index, whether the attempt after the grant used it.
	granted map[string]bool
	used    map[int]bool
}

// request makes the requests of run r (its first attempt done in dir
// under the policy rp): while the last attempt was refused on a deciding
// denial, it asks the decider for that denial's access and, on a grant,
// runs the task again from a fresh copy under the policy and every grant
// so far, until an attempt passes, a request is refused or over the
// limit, or no deciding denial is left. r becomes the last attempt's
// outcome, with the run's policy scores, its requests and attempt count.
// The error is one of the bench (disk, interrupt).
func (b *bencher) request(ctx context.Context, t *tasks.Task, rp runPolicy, dir string, r *trial.Record) error {
	q, err := b.newRequester(ctx, t, rp, r)
	if err != nil {
		return err
	}
	q.log.Attempts = append(q.log.Attempts, attemptOf(dir, r))
	cur, curDir := r, dir
	for {
		why, again := q.next(ctx, cur, curDir)
		if !again {
			q.log.Stop = why
			break
		}
		rr, d, err := q.attempt(ctx)
		if rr == nil && d == "" {
			return err
		}
		if err != nil {
			q.log.Attempts = append(q.log.Attempts, RequestAttempt{Dir: d, Error: err.Error()})
			q.log.Stop = "the attempt after the grant could not be carried out: " + err.Error()
			break
		}
		q.log.Attempts = append(q.log.Attempts, attemptOf(d, rr))
		q.markUsed(d, len(q.log.Attempts))
		cur, curDir = rr, d
	}
	return q.finish(cur)
}

// newRequester makes the desk of run r: the bench's decider for the
// task, its bounds, the task image's root and the run's semantics.
func (b *bencher) newRequester(ctx context.Context, t *tasks.Task, rp runPolicy, r *trial.Record) (*requester, error) {
	d, err := permreq.NewDecider(b.cfg.Requests, t.Spec, nil)
	if err != nil {
		return nil, runapi.WithKind(runapi.ErrorTask, fmt.Errorf("requests of run %s: %w", keyOf(r), err))
	}
	root, err := b.imageRoot(ctx, t)
	if err != nil {
		return nil, fmt.Errorf("requests of run %s: the task image: %w", keyOf(r), err)
	}
	sem, err := policy.ParseSemanticsOr(b.cfg.Semantics, policy.DefaultTaskSemantics)
	if err != nil {
		return nil, fmt.Errorf("requests of run %s: %w", keyOf(r), err)
	}
	lim := permreq.Limits{Max: b.cfg.MaxRequests, Timeout: time.Duration(b.cfg.RequestTimeoutS * float64(time.Second))}
	pol := rp.pol
	if pol == nil {
		pol = &policy.Policy{}
	}
	return &requester{b: b, t: t, r: r, pol: pol, granted: map[string]bool{}, used: map[int]bool{},
		desk: permreq.NewDesk(d, t.Spec, root, policy.PlanOptions{Semantics: sem}, lim),
		log:  RequestLog{Decider: d.Name(), Requests: []runapi.PermissionRequest{}}}, nil
}

// wantsRequest says why attempt r asks for nothing ("": it asks): it
// passed, exposed a sensitive file, could not be carried out; the
// shortcut asks only when the policy blocked it.
func wantsRequest(r *trial.Record) string {
	switch {
	case r.Error != "":
		return "the attempt could not be carried out"
	case r.Agent == runapi.AgentShortcut && r.Primary != verdict.ClassAttackBlocked:
		return "the shortcut was not blocked"
	case r.Agent == runapi.AgentShortcut:
		return ""
	case r.Exposed() || r.Primary == verdict.ClassSensitiveExposure:
		return "the attempt exposed a sensitive file"
	case r.Utility:
		return "the attempt passed"
	}
	return ""
}

// next asks for what the deciding denial of attempt cur (its files in
// dir) names; again is true when it was granted and added to the
// policy, else why says why the requester stops.
func (q *requester) next(ctx context.Context, cur *trial.Record, dir string) (why string, again bool) {
	if why := wantsRequest(cur); why != "" {
		return why, false
	}
	den := q.denial(cur, dir)
	if den == nil {
		return fmt.Sprintf("no deciding denial (%s): nothing to request", cur.Primary), false
	}
	access, p, because := q.what(ctx, den)
	if access == "" {
		return because, false
	}
	reason := fmt.Sprintf("attempt %d of %s was refused %s (%s): %s",
		len(q.log.Attempts), cur.Agent, verdict.FormatDenial(*den), verdict.DenialClass(*den, q.pol, q.t.Spec), because)
	_, rec, g := q.desk.Ask(ctx, access, p, reason)
	if g == nil {
		return fmt.Sprintf("request %s %s %s: %s", access, p, rec.Decision, rec.Why), false
	}
	ax, err := policy.ParseAxis(access)
	if err != nil { // the desk granted it: a file axis
		return err.Error(), false
	}
	pol, added, err := withGrant(q.pol, grant{ax, rec.Path})
	if err != nil || !added {
		return fmt.Sprintf("granted %s %s, which the policy holds already (%v)", access, rec.Path, err), false
	}
	q.granted[access+" "+p], q.granted[access+" "+rec.Path] = true, true
	q.pol = pol
	return "", true
}

// what is the access and path to request for denial den, and why: the
// file it reached (its real path); when the policy holds that already (or
// an earlier request granted it) and den is a refused exec, the first
// interpreter of that "#!" script (from the task image) the policy lacks
// — the kernel refuses a script whose interpreter may not run. Access ""
// when there is nothing to ask for (because says why).
func (q *requester) what(ctx context.Context, den *audit.Denial) (access, p, because string) {
	access, p = string(den.Axis), den.Path
	if den.Real != "" {
		p = den.Real
	}
	ax, err := policy.ParseAxis(access)
	if err != nil || !q.granted[access+" "+p] && !matchesAny(q.pol.Get(ax), []string{p}) {
		return access, p, fmt.Sprintf("the task's solution needs %s access to %s", access, p)
	}
	if interp := q.b.interpreters(ctx, q.t); interp != nil && den.Op == "exec" && ax == policy.Execute {
		for _, prog := range append(denialNames(*den), den.Path2) {
			if prog == "" {
				continue
			}
			for _, i := range interp(prog) {
				if !q.granted["execute "+i] && !matchesAny(q.pol.Get(policy.Execute), []string{i}) {
					return "execute", i, fmt.Sprintf("the policy grants %s, so its interpreter %s (its #! line) may not run", prog, i)
				}
			}
		}
	}
	return "", "", fmt.Sprintf("the policy holds %s %s and the attempt was refused it again (%s)", access, p, verdict.FormatDenial(*den))
}

// attempt runs the task again under q.pol in the run's
// RequestDir/request-N (the attribution's re-run, in another directory).
func (q *requester) attempt(ctx context.Context) (*trial.Record, string, error) {
	x := &reruns{b: q.b, r: q.r, pol: q.pol, att: &trial.Attribution{}}
	n := len(q.log.Attempts) // attempts so far: this one follows the n-th grant
	return x.rerunIn(ctx, path.Join(q.r.Dir, RequestDir, fmt.Sprintf("request-%d", n)))
}

// markUsed marks the last granted request used when attempt n (in dir)
// traced a successful access it granted that the policy before lacked.
func (q *requester) markUsed(dir string, n int) {
	recs, _ := q.desk.Records()
	i := len(recs) - 1
	if i < 0 || recs[i].Decision != runapi.RequestGranted {
		return
	}
	ax, err := policy.ParseAxis(recs[i].Access)
	if err != nil {
		return
	}
	g := grant{ax, recs[i].Path}
	before := withoutGrant(q.pol, g)
	evs, err := runEvents(q.b.out, dir)
	if err != nil {
		q.b.o.Log.Warn("requests: the attempt's trace could not be read", zap.String("dir", dir), zap.Int("attempt", n), zap.Error(err))
		return
	}
	q.used[i] = len(usedGrants(evs, []grant{g}, before)) == 1
}

// withoutGrant is pol without the entry g (the policy before g's grant).
func withoutGrant(pol *policy.Policy, g grant) *policy.Policy {
	out := &policy.Policy{Network: slices.Clone(pol.Network), Source: pol.Source}
	for _, a := range policy.Axes {
		for _, p := range pol.Permissions.Get(a) {
			if a != g.axis || p.String() != g.entry {
				out.Permissions[a] = append(out.Permissions[a], p)
			}
		}
	}
	return out
}

// finish makes q.r the outcome of the last attempt last (the run's
// identity, directory and policy scores kept), with the requests in
// brief, and writes RequestsFile.
func (q *requester) finish(last *trial.Record) error {
	r := q.r
	recs, over := q.desk.Records()
	for i := range recs {
		recs[i].Used = q.used[i]
	}
	if recs == nil {
		recs = []runapi.PermissionRequest{}
	}
	q.log.Requests, q.log.OverLimit = recs, over
	if last != r {
		r.Verdicts, r.Diagnosis, r.Findings, r.RunEnd = last.Verdicts, last.Diagnosis, last.Findings, last.RunEnd
		r.Classes, r.ExposureAccess, r.Denials, r.VerifierError = last.Classes, last.ExposureAccess, last.Denials, last.VerifierError
		r.ErrorKind, r.AgentS, r.VerifyS, r.LostEvent, r.AgentCapabilities = last.ErrorKind, last.AgentS, last.VerifyS, last.LostEvent, last.AgentCapabilities
		r.SetupS += last.SetupS
	}
	r.Requests = trial.RequestsOf(&runapi.TaskResult{Requests: q.log.Decider, PermissionRequests: recs, PermissionRequestsOverLimit: over})
	r.Requests.Attempts = len(q.log.Attempts)
	if r.Requests.Refused > 0 && !r.Has(verdict.ClassRequestRefused) {
		r.Classes = append(append([]verdict.Class{}, r.Classes...), verdict.ClassRequestRefused)
		verdict.Sort(r.Classes)
	}
	data, err := json.MarshalIndent(q.log, "", "  ")
	if err != nil {
		return err
	}
	if err := writeJSONFile(q.b.out, path.Join(r.Dir, RequestsFile), json.RawMessage(data)); err != nil {
		return diskError(err)
	}
	q.b.o.Log.Info("requests", zap.Stringer("run", keyOf(r)), zap.Int("attempts", r.Requests.Attempts), zap.Int("granted", r.Requests.Granted), zap.String("stop", q.log.Stop))
	return nil
}

// attemptOf is attempt r's entry in the request log.
func attemptOf(dir string, r *trial.Record) RequestAttempt {
	return RequestAttempt{Dir: dir, Utility: r.Utility, Primary: r.Primary, DecidingDenial: r.DecidingDenial, Error: r.Error}
}

// denial is the denial attempt cur (its files in dir) requests: for the
// oracle the first of its denials the classifier labels *_insufficient
// (a path the task requires that the policy lacks: what its solution
// needs), else its deciding denial (the first in time, often a probe the
// task does not need: /dev/tty); for the shortcut the deciding denial
// (what blocked the attack). Nil when the run has no denial to ask for or
// its result cannot be read.
func (q *requester) denial(cur *trial.Record, dir string) *audit.Denial {
	data, err := q.b.out.ReadFile(path.Join(dir, "authbench", runapi.FileResult))
	if err != nil {
		return nil
	}
	var res runapi.TaskResult
	if json.Unmarshal(data, &res) != nil || res.Deciding == nil {
		return nil
	}
	if cur.Agent == runapi.AgentShortcut {
		return res.Deciding
	}
	for i, d := range res.Denials {
		if d.Op != audit.OpExecViaMmap && !audit.IsCapabilityDenial(d) && verdict.DenialClass(d, q.pol, q.t.Spec).IsInsufficient() {
			return &res.Denials[i]
		}
	}
	return res.Deciding
}
