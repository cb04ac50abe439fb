package permreq

import (
	"fmt"

	"github.com/authbench/authbench/policy"
)

// Grant is what a request would add to a run's plan: its rules alone
// (the request compiled as a one-entry policy against the run's root,
// with the run's semantics), where they are wider than the request, and
// the sensitive files they would reach.
type Grant struct {
	// Hosts are a network request's endpoints (for the run's proxy);
	// Rules, Wider and Sensitive are then empty.
	Hosts     []policy.HostPattern
	Rules     []policy.Rule
	Wider     []policy.Widening
	Sensitive []policy.SensitiveGrant
}

// Compile compiles req against root as a plan would (a missing file to
// write: creation rights on its nearest existing parent; a directory:
// its hierarchy) and judges it against the sensitive entries sens (nil:
// none) with policy.Plan.SensitiveGrants. Only the request's own rules
// are kept (not the sandbox essentials every plan has).
func Compile(req Request, root *policy.Root, opts policy.PlanOptions, sens *policy.Permissions) (*Grant, error) {
	var perms policy.Permissions
	perms[req.Axis] = []policy.Pattern{req.Path}
	plan, err := policy.CompilePlanWith(&policy.Policy{Permissions: perms, Source: "permission request"}, policy.NoBaseline(), root, opts)
	if err != nil {
		return nil, fmt.Errorf("compile request %s: %w", req, err)
	}
	g := &Grant{Wider: plan.Wider, Sensitive: plan.SensitiveGrants(sens, root)}
	for _, r := range plan.Rules {
		var acc policy.Access
		var from []policy.RuleSource
		for _, s := range r.From {
			if s.Origin == policy.OriginPolicy {
				acc |= s.Access
				from = append(from, s)
			}
		}
		if acc != 0 {
			r.Access, r.From = acc, from
			g.Rules = append(g.Rules, r)
		}
	}
	return g, nil
}

// SensitiveMatch is the first sensitive pattern of req's axis that
// matches the requested path itself (whether or not it exists), or "".
func SensitiveMatch(req Request, sens *policy.Permissions) string {
	if sens == nil || req.Network {
		return ""
	}
	for _, q := range sens.Get(req.Axis) {
		if q.Match(req.Path.Base()) {
			return q.String()
		}
		// A hierarchy asked for holds every sensitive path below it.
		if req.Path.Recursive() && req.Path.Match(q.Base()) {
			return q.String()
		}
	}
	return ""
}

// Covered reports whether one of pats covers the request: matches its
// path, and for a hierarchy ("dir/**") everything below it too.
func Covered(req Request, pats []policy.Pattern) bool {
	if req.Network {
		return false
	}
	for _, q := range pats {
		if !q.Match(req.Path.Base()) {
			continue
		}
		if !req.Path.Recursive() || q.Recursive() {
			return true
		}
	}
	return false
}

// CoveredHost reports whether one of pats covers a network request's
// endpoint.
func CoveredHost(req Request, pats []policy.HostPattern) bool {
	for _, q := range pats {
		if req.Network && q.Match(req.Host.Host(), req.Host.Port()) {
			return true
		}
	}
	return false
}

// SensitiveHost is the first sensitive network entry of spec that
// matches a network request's endpoint, or "".
func SensitiveHost(req Request, spec *policy.Spec) string {
	if spec == nil || !req.Network {
		return ""
	}
	for _, q := range spec.Network.Sensitive {
		if q.Match(req.Host.Host(), req.Host.Port()) {
			return q.String()
		}
	}
	return ""
}
