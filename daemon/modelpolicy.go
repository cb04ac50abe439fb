package daemon

import (
	"github.com/authbench/authbench/agent/modelconfig"
)

// Rules of a member's model config (ForbiddenError.Rule).
const (
	// RuleModelEndpoint: a member named a model endpoint (base_url) the
	// daemon's config does not allow members ([model] allowed_base_urls).
	RuleModelEndpoint = "model_endpoint_not_allowed"
	// RuleModelLimits: a member asked for more turns or history than the
	// daemon's config allows members ([model] member_max_turns,
	// member_max_history_bytes).
	RuleModelLimits = "model_limits"
)

// limitMemberModel holds a member's model to what root allows members
// (pol): an endpoint not allowed, or a limit passed, is refused before
// anything connects to it; limits left to their defaults get the
// member's. Root is not bound (nor is the embedded CLI, run as root).
func (p *modelTake) limitMemberModel(peer Peer, pol modelconfig.MemberPolicy) error {
	if p.model == nil || peer.UID == 0 {
		return nil
	}
	field := p.modelField
	if err := pol.AllowsBaseURL(p.model.BaseURL); err != nil {
		return forbidden(RuleModelEndpoint, "%s: %v", field, err)
	}
	lim, err := pol.Limit(p.modelAsked)
	if err != nil {
		return forbidden(RuleModelLimits, "%s: %v", field, err)
	}
	p.model.MaxTurns, p.model.MaxHistoryBytes = lim.MaxTurns, lim.MaxHistoryBytes
	redacted := p.model.Redacted()
	*p.modelAt = &redacted // the member is the run's own copy (validate)
	return nil
}
