package toolbox

import (
	"errors"
	"fmt"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/sandbox"
)

// Operations that confine the calls (the host sends them; the model has
// no tool for them).
const (
	// OpConfine: from now on every call runs on a thread of its own,
	// restricted by Request.Plan's ruleset plus Request.Rules (the grants
	// so far). Once only.
	OpConfine = "confine"
	// OpGrant adds Request.Rules to the calls' ruleset: they apply from
	// the next call.
	OpGrant = "grant"
)

// confine builds the calls' ruleset of req.Plan, now (before anything of
// the agent ran in this process), with the grants req.Rules.
func (s *server) confine(req Request) Result {
	if s.rules != nil {
		return errorResult(req.ID, errors.New("the calls are confined already"))
	}
	if req.Plan == nil {
		return errorResult(req.ID, errors.New("confine: no plan"))
	}
	rs, err := sandbox.NewRuleset(req.Plan)
	if err != nil {
		return errorResult(req.ID, fmt.Errorf("confine: %w", err))
	}
	if err := addRules(rs, req.Rules); err != nil {
		rs.Close()
		return errorResult(req.ID, fmt.Errorf("confine: %w", err))
	}
	s.rules = rs
	return Result{ID: req.ID, Output: fmt.Sprintf("confined: %d plan rules, %d granted", len(req.Plan.Rules), len(req.Rules))}
}

// grant adds req.Rules to the calls' ruleset; none is added when one is
// refused.
func (s *server) grant(req Request) Result {
	if s.rules == nil {
		return errorResult(req.ID, errors.New("grant: the calls are not confined"))
	}
	if len(req.Rules) == 0 {
		return errorResult(req.ID, errors.New("grant: no rules"))
	}
	// Each rule is checked before any is added: a ruleset cannot lose a rule.
	for _, r := range req.Rules {
		if err := sandbox.CheckGrantPath(r); err != nil {
			return errorResult(req.ID, err)
		}
	}
	if err := addRules(s.rules, req.Rules); err != nil {
		return errorResult(req.ID, err)
	}
	return Result{ID: req.ID, Output: fmt.Sprintf("granted %d rules", len(req.Rules))}
}

func addRules(rs *sandbox.Ruleset, rules []policy.Rule) error {
	for _, r := range rules {
		if err := rs.AddRule(r); err != nil {
			return err
		}
	}
	return nil
}

// confined runs op on a new thread restricted by the calls' ruleset
// (directly when the calls are not confined). The thread ends with op:
// it is never used again.
func (s *server) confined(req Request, op func() Result) Result {
	if s.rules == nil {
		return op()
	}
	ch := make(chan Result, 1)
	go func() {
		// Locked by RestrictThread and never unlocked: Go ends the thread
		// when this goroutine returns.
		if err := s.rules.RestrictThread(); err != nil {
			ch <- errorResult(req.ID, fmt.Errorf("restrict the call: %w", err))
			return
		}
		ch <- op()
	}()
	return <-ch
}
