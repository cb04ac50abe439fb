package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/authbench/authbench/agent"
	"github.com/authbench/authbench/agent/toolbox"
	"github.com/authbench/authbench/permreq"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
)

// ToolRequestPermission is the model agent's tool that asks for one more
// permission.
const ToolRequestPermission = "request_permission"

// ExtraPermissionRequest is the tool result's Extra key (and so the
// trajectory's) holding a request's runapi.PermissionRequest.
const ExtraPermissionRequest = "permission_request"

// Requests are a model agent's run-time permission requests
// (docs/security.md, "Permission requests").
type Requests struct {
	// Desk decides them.
	Desk *permreq.Desk
	// CallPlan is π's plan: every tool call starts under it and the
	// grants so far. ToolboxPlan confines the tool process itself: π and
	// everything the decider could grant.
	CallPlan, ToolboxPlan *policy.Plan
	// OnGrant, when set, is called with each applied grant (its record's
	// index and the record).
	OnGrant func(i int, rec runapi.PermissionRequest)
	// AllowHosts applies a granted network request (the run's egress
	// proxy); nil: the run has none, and such a grant fails.
	AllowHosts func(hosts []policy.HostPattern) error
}

// RequestWidening records that the tool process of a run with requests
// holds the decider's ceiling (permreq.Ceiling), not π: its calls do not.
func RequestWidening(decider string) policy.Widening {
	return policy.Widening{
		Kind: "request-toolbox", Axis: policy.Read.String(), Pattern: "--requests " + decider, Path: "/",
		Detail: "the model agent's tool process holds π plus everything the " + decider + " decider could grant, so that grants can apply; " +
			"each tool call runs on a thread restricted to π plus the grants so far",
	}
}

// confine confines the current toolbox's calls to the call plan and the
// grants so far (a restarted toolbox gets them all).
func (s *toolboxSession) confine(ctx context.Context) error {
	q := s.o.Requests
	if q == nil {
		return nil
	}
	s.mu.Lock()
	c, grants := s.cur, append([]policy.Rule(nil), s.grants...)
	s.mu.Unlock()
	res, err := c.client.Call(ctx, toolbox.Request{Op: toolbox.OpConfine, Plan: q.CallPlan, Rules: grants})
	if err == nil && res.Error != "" {
		err = errors.New(res.Error)
	}
	if err != nil {
		return fmt.Errorf("confine the agent's tool calls: %w", err)
	}
	return nil
}

// requestTool is request_permission: the request is decided here, by
// the desk, and a grant sent to the current toolbox.
func (s *toolboxSession) requestTool() agent.Tool {
	return agent.Tool{
		Name: ToolRequestPermission,
		Description: "Ask for one more permission when the security policy denies an access the task needs: the access " +
			"(read, write or execute), the absolute path (a directory's whole tree with a trailing /**; no other " +
			"wildcards) and why the task needs it; or access network with host:port as the path, for a task with a network policy. The answer says whether it was granted. A grant applies from your " +
			"next tool call; processes already running keep their permissions. Requests are limited and recorded.",
		Parameters: map[string]any{
			"type": "object", "additionalProperties": false, "required": []string{"access", "path", "reason"},
			"properties": map[string]any{
				"access": map[string]any{"type": "string", "enum": []string{"read", "write", "execute", "network"}},
				"path":   map[string]any{"type": "string", "description": "the absolute path (network: host:port)"},
				"reason": map[string]any{"type": "string", "description": "why the task needs this access"},
			},
		},
		Run: s.request,
	}
}

func (s *toolboxSession) request(ctx context.Context, args json.RawMessage) (agent.Observation, error) {
	var a struct{ Access, Path, Reason string }
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return agent.Observation{}, fmt.Errorf("arguments: %w", err)
	}
	q := s.o.Requests
	i, rec, g := q.Desk.Ask(ctx, a.Access, a.Path, a.Reason)
	if g != nil {
		if err := s.apply(ctx, g); err != nil {
			rec = q.Desk.Failed(i, err)
		} else if q.OnGrant != nil {
			q.OnGrant(i, rec)
		}
	}
	text := rec.Why
	if rec.Decision == runapi.RequestGranted {
		text += ". It applies from your next tool call."
	}
	return agent.Observation{Text: text, Extra: map[string]any{ExtraPermissionRequest: rec}}, nil
}

// apply applies grant g: a network request's endpoints on the run's
// proxy, file rules to the toolbox's calls.
func (s *toolboxSession) apply(ctx context.Context, g *permreq.Grant) error {
	if len(g.Hosts) == 0 {
		return s.grant(ctx, g.Rules)
	}
	if s.o.Requests.AllowHosts == nil {
		return errors.New("this run has no egress proxy to allow it on")
	}
	return s.o.Requests.AllowHosts(g.Hosts)
}

// grant adds rules to the current toolbox's calls, and keeps them for a
// toolbox started again.
func (s *toolboxSession) grant(ctx context.Context, rules []policy.Rule) error {
	s.mu.Lock()
	c := s.cur
	s.mu.Unlock()
	res, err := c.client.Call(ctx, toolbox.Request{Op: toolbox.OpGrant, Rules: rules})
	if err == nil && res.Error != "" {
		err = errors.New(res.Error)
	}
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.grants = append(s.grants, rules...)
	s.mu.Unlock()
	return nil
}
