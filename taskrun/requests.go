package taskrun

import (
	"fmt"
	"sync"
	"time"

	"github.com/authbench/authbench/netproxy/netpolicy"
	"github.com/authbench/authbench/permreq"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/taskrun/internal/session"
	"github.com/authbench/authbench/tracer/trace"
)

// checkRequests checks --requests before anything is built: a known
// decider, and a model agent (the only kind that can request yet) under
// a policy (error kind task).
func (r *runner) checkRequests() error {
	name := r.Options.Requests
	var err error
	switch {
	case name == "":
		return nil
	case permreq.CheckDecider(name) != nil:
		err = permreq.CheckDecider(name)
	case !canRequest(r.Options.Agent):
		err = fmt.Errorf("agent %s cannot make permission requests (openai:MODEL, cmd:COMMAND and installed:NAME agents can)", r.Options.Agent)
	case r.Options.Source == runapi.SourceUnconstrained:
		err = fmt.Errorf("the unconstrained row has no policy to widen")
	default:
		return nil
	}
	return runapi.WithKind(runapi.ErrorTask, fmt.Errorf("requests: %w", err))
}

// prepareRequests makes a model agent's request desk and the tool
// process's plan: π ∪ everything the decider could grant (its domain
// caps every grant), listed as a widening; the calls start from r.Plan.
// Any other agent gets the desk alone: its in-container program's
// channel is started with its container (startBroker).
func (r *runner) prepareRequests(pol *policy.Policy, base policy.Baseline, root *policy.Root, opts policy.PlanOptions, toolbox bool) error {
	spec := r.Options.Task.Spec
	d, err := permreq.NewDecider(r.Options.Requests, spec, r.judge)
	if err != nil {
		return fmt.Errorf("requests: %w", err)
	}
	if !toolbox {
		r.res.Requests = d.Name()
		r.requests = &requestRun{desk: permreq.NewDesk(d, spec, root, opts, r.Options.RequestLimits)}
		r.res.PlanWiderThanPolicy = append(r.res.PlanWiderThanPolicy, requestProgramWidening(d.Name()))
		return nil
	}
	ceil := permreq.Ceiling(d.Name(), spec)
	var wide policy.Policy
	for _, a := range policy.Axes {
		wide.Permissions[a] = append(append([]policy.Pattern(nil), pol.Permissions.Get(a)...), ceil.Get(a)...)
	}
	tp, err := policy.CompilePlanWith(&wide, base, root, opts)
	if err != nil {
		return fmt.Errorf("requests: compile the tool process's plan: %w", err)
	}
	r.res.Requests = d.Name()
	r.requests = &requestRun{desk: permreq.NewDesk(d, spec, root, opts, r.Options.RequestLimits)}
	r.requests.session = &session.Requests{Desk: r.requests.desk, CallPlan: r.Plan, ToolboxPlan: tp, OnGrant: r.requests.granted, AllowHosts: r.allowHosts}
	r.res.PlanWiderThanPolicy = append(r.res.PlanWiderThanPolicy, session.RequestWidening(d.Name()))
	return nil
}

// requestRun is a run's run-time requests: a model agent's (session
// set) or another agent's through its in-container program (broker set
// once its container starts).
type requestRun struct {
	desk    *permreq.Desk
	session *session.Requests
	broker  *brokerRun

	mu     sync.Mutex
	grants []grantWatch
}

// grantWatch is a grant whose use the trace is watched for.
type grantWatch struct {
	record int
	axis   trace.Axis
	path   policy.Pattern
	after  int64
	used   bool
}

// granted starts watching grant i (record index) for its use.
func (q *requestRun) granted(i int, rec runapi.PermissionRequest) {
	req, err := permreq.Parse(rec.Access, rec.Path, rec.Reason)
	if err != nil || req.Network {
		return // a network grant's use is the proxy's record
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.grants = append(q.grants, grantWatch{record: i, axis: trace.Axis(req.Axis.String()), path: req.Path, after: time.Now().UnixNano()})
}

// observe marks the grants that a successful traced access uses.
func (q *requestRun) observe(ev *trace.Event) {
	if ev.Failed() {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	for i := range q.grants {
		g := &q.grants[i]
		if !g.used && ev.Axis == g.axis && ev.TS >= g.after && (g.path.Match(ev.Path) || g.path.Match(ev.Target())) {
			g.used = true
		}
	}
}

// note puts the requests into the result.
func (r *runner) noteRequests() {
	q := r.requests
	if q == nil {
		return
	}
	recs, over := q.desk.Records()
	q.mu.Lock()
	for _, g := range q.grants {
		if g.used && g.record >= 0 && g.record < len(recs) {
			recs[g.record].Used = true
		}
	}
	q.mu.Unlock()
	r.res.PermissionRequests, r.res.PermissionRequestsOverLimit = recs, over
}

// watch adds the grants' use to what a trace observes.
func (q *requestRun) watch(also func(*trace.Event)) func(*trace.Event) {
	return func(ev *trace.Event) {
		if also != nil {
			also(ev)
		}
		q.observe(ev)
	}
}

// allowHosts applies a granted network request: its endpoints join the
// agent phase's allow-list on the run's egress proxy (until the
// verifiers' phase).
func (r *runner) allowHosts(hosts []policy.HostPattern) error {
	if r.net == nil || r.net.proxy == nil {
		return fmt.Errorf("this run's agent phase has no egress proxy to allow it on")
	}
	for _, h := range hosts {
		if err := r.net.proxy.AllowHost(netpolicy.PhaseAgent, h); err != nil {
			return err
		}
	}
	return nil
}
