package permreq

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
)

// Defaults of a run's bounds.
const (
	DefaultMaxRequests = 8
	DefaultTimeout     = 30 * time.Second
)

// Limits bound a run's requests.
type Limits struct {
	// Max is how many requests a run may make (0: DefaultMaxRequests);
	// later ones are refused without reaching the decider.
	Max int
	// Timeout bounds each decision (0: DefaultTimeout): a decider that
	// has not answered by then refuses.
	Timeout time.Duration
}

func (l Limits) withDefaults() Limits {
	if l.Max <= 0 {
		l.Max = DefaultMaxRequests
	}
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	return l
}

// Desk takes a run's requests: it checks each, keeps the bounds, compiles
// it against the run's root, asks the decider and records the answer.
// It is safe for concurrent use; requests are judged one at a time.
type Desk struct {
	decider Decider
	spec    *policy.Spec
	root    *policy.Root
	opts    policy.PlanOptions
	limits  Limits

	mu        sync.Mutex
	records   []runapi.PermissionRequest
	overLimit int
}

// NewDesk makes the desk of a run: decider d, the task's spec (nil:
// none), the run's root and plan options.
func NewDesk(d Decider, spec *policy.Spec, root *policy.Root, opts policy.PlanOptions, l Limits) *Desk {
	return &Desk{decider: d, spec: spec, root: root, opts: opts, limits: l.withDefaults()}
}

// Limits are the desk's bounds, defaults applied.
func (d *Desk) Limits() Limits { return d.limits }

// Ask judges one request as the agent sent it. The record is what the
// agent is told (Why) and what the run keeps; the grant is non-nil only
// when the decider granted it, and must then be applied and confirmed
// with Applied (or Failed).
func (d *Desk) Ask(ctx context.Context, access, path, reason string) (int, runapi.PermissionRequest, *Grant) {
	d.mu.Lock()
	defer d.mu.Unlock()
	rec := runapi.PermissionRequest{Access: cut(access, 32), Path: cut(path, policy.MaxPatternBytes), Reason: cut(reason, MaxReasonBytes), At: time.Now()}
	if len(d.records) >= d.limits.Max {
		d.overLimit++
		rec.Decision = runapi.RequestOverLimit
		rec.Why = fmt.Sprintf("refused: this run's %d permission requests are used up", d.limits.Max)
		return -1, rec, nil
	}
	g, err := d.judge(ctx, &rec)
	if err != nil {
		rec.Decision, rec.Why = runapi.RequestInvalid, "invalid request: "+err.Error()
		g = nil
	}
	rec.DecideMS = float64(time.Since(rec.At).Microseconds()) / 1000
	d.records = append(d.records, rec)
	return len(d.records) - 1, rec, g
}

// judge parses, compiles and decides rec; a nil grant with no error is a
// refusal.
func (d *Desk) judge(ctx context.Context, rec *runapi.PermissionRequest) (*Grant, error) {
	req, err := Parse(rec.Access, rec.Path, rec.Reason)
	if err != nil {
		return nil, err
	}
	if req.Network {
		return d.judgeNetwork(ctx, req, rec)
	}
	rec.Path, rec.Reason = req.Path.String(), req.Reason
	var sens *policy.Permissions
	if d.spec != nil {
		sens = d.spec.Sensitive
		rec.Required = Covered(req, d.spec.Required.Get(req.Axis)) || Covered(req, d.spec.Implicit.Get(req.Axis))
	}
	g, err := Compile(req, d.root, d.opts, sens)
	if err != nil {
		return nil, err
	}
	rec.Sensitive = SensitiveMatch(req, sens) != "" || len(g.Sensitive) > 0
	rec.Decider = d.decider.Name()
	dec := d.decide(ctx, req, g)
	rec.Why = dec.Why
	if !dec.Granted {
		rec.Decision = runapi.RequestRefused
		return nil, nil
	}
	if len(g.Rules) == 0 {
		rec.Decision = runapi.RequestFailed
		rec.Why = "granted, but there is nothing to grant here: " + req.Path.String() + " does not exist (nor, for a write, a directory to create it in below /)"
		return nil, nil
	}
	rec.Decision = runapi.RequestGranted
	for _, r := range g.Rules {
		rec.Rules = append(rec.Rules, r.Path+" "+r.Access.String())
	}
	return g, nil
}

// judgeNetwork decides a network request: only for a task whose spec
// declares the network axis; an endpoint the spec marks sensitive is
// refused whatever the decider (none sees it); a grant is the endpoint.
func (d *Desk) judgeNetwork(ctx context.Context, req Request, rec *runapi.PermissionRequest) (*Grant, error) {
	if d.spec == nil || !d.spec.Network.Declared {
		return nil, fmt.Errorf("access network: this task has no network axis (its spec declares no network permissions)")
	}
	rec.Path, rec.Reason = req.Host.String(), req.Reason
	rec.Required = CoveredHost(req, d.spec.Network.Required) || CoveredHost(req, d.spec.Network.Implicit)
	rec.Decider = d.decider.Name()
	if q := SensitiveHost(req, d.spec); q != "" {
		rec.Sensitive, rec.Decision = true, runapi.RequestRefused
		rec.Why = fmt.Sprintf("refused: %s is sensitive (%s)", req.Host, q)
		return nil, nil
	}
	g := &Grant{Hosts: []policy.HostPattern{req.Host}}
	dec := d.decide(ctx, req, g)
	rec.Why = dec.Why
	if !dec.Granted {
		rec.Decision = runapi.RequestRefused
		return nil, nil
	}
	rec.Decision, rec.Rules = runapi.RequestGranted, []string{AccessNetwork + " " + req.Host.String()}
	return g, nil
}

// decide asks the decider within the time limit; no answer in time
// refuses.
func (d *Desk) decide(ctx context.Context, req Request, g *Grant) Decision {
	ctx, cancel := context.WithTimeout(ctx, d.limits.Timeout)
	defer cancel()
	ch := make(chan Decision, 1)
	go func() { ch <- d.decider.Decide(ctx, req, g) }()
	select {
	case dec := <-ch:
		return dec
	case <-ctx.Done():
		return Decision{Why: fmt.Sprintf("refused: no decision within %s (%v)", d.limits.Timeout, context.Cause(ctx))}
	}
}

// Failed turns granted request i into RequestFailed: its grant could not
// be applied (err says why).
func (d *Desk) Failed(i int, err error) runapi.PermissionRequest {
	d.mu.Lock()
	defer d.mu.Unlock()
	r := &d.records[i]
	r.Decision, r.Why, r.Rules = runapi.RequestFailed, "granted, but not applied: "+err.Error(), nil
	return *r
}

// Records are the run's requests within the limit, in order, and how
// many were refused over it.
func (d *Desk) Records() ([]runapi.PermissionRequest, int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]runapi.PermissionRequest(nil), d.records...), d.overLimit
}
