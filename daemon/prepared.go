package daemon

import (
	"github.com/authbench/authbench/agent/modelconfig"
	"github.com/authbench/authbench/daemon/work"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/sandbox"
)

// prepared is a validated request: the request as recorded, its kind,
// and that kind's own parsed state (runKind.validate returns it; one
// type per kind, so that a fifth kind's state is its own type, no field
// of a shared struct).
type prepared struct {
	// req is the request as recorded: the caller's, with the defaults
	// applied and keys redacted (its member is the run's own copy).
	req   runapi.RunRequest
	kind  runKind
	state kindState
}

// kindState is one kind's parsed state of a validated request
// (execPrepared, taskPrepared, generatePrepared, buildPrepared); its
// kind's execute reads it (stateOf).
type kindState interface {
	// identity is the uid and gid the run's tree runs as, recorded before
	// it starts (0, 0 for a kind that has no tree of the caller's or
	// learns it later: a task's agent is its image's user).
	identity() (uid, gid uint32)
	// memberModel is the model a run of the kind connects to, held to
	// the daemon's member policy (limitMemberModel); nil for none.
	memberModel() *modelTake
}

// stateOf is the kind state of ar, as its kind's validate made it.
func stateOf[T kindState](ar *activeRun) T { return ar.prep.state.(T) }

// recorded is the request a kind state checks and resolves defaults
// into: the prepared request's (validate copies the member first).
type recorded struct {
	req *runapi.RunRequest
}

// execPrepared is a command's parsed state.
type execPrepared struct {
	recorded
	// policy is π (nil for none), with its baseline and the options
	// that choose how it is compiled (semantics, symlinks).
	policy      *policy.Policy
	baseline    policy.Baseline
	planOptions policy.PlanOptions
	uid, gid    uint32
	seccomp     *sandbox.Filter // nil: no filter
}

func (p *execPrepared) identity() (uint32, uint32) { return p.uid, p.gid }
func (p *execPrepared) memberModel() *modelTake    { return nil }

// taskPrepared is a task run's parsed state.
type taskPrepared struct {
	recorded
	task work.Task
	// policy is π of policy source "policy"; nil for the others.
	policy *policy.Policy
	// caps are the agent's capabilities (nil: the task's).
	caps []string
	modelTake
}

func (p *taskPrepared) identity() (uint32, uint32) { return 0, 0 }
func (p *taskPrepared) memberModel() *modelTake    { return p.modelTake.taken() }

// generatePrepared is a permission generation's parsed state.
type generatePrepared struct {
	recorded
	task work.Task
	modelTake
}

func (p *generatePrepared) identity() (uint32, uint32) { return 0, 0 }
func (p *generatePrepared) memberModel() *modelTake    { return p.modelTake.taken() }

// buildPrepared is an image build's parsed state.
type buildPrepared struct {
	recorded
	// task is the task whose image is built (nil for a base).
	task work.Task
}

func (p *buildPrepared) identity() (uint32, uint32) { return 0, 0 }
func (p *buildPrepared) memberModel() *modelTake    { return nil }

// modelTake is an openai:MODEL task agent's or generator's model, with
// its API key, taken out of the recorded request (whose copy, at
// modelAt, has none); modelField names it in refusals and modelAsked is
// the config as the caller sent it, before its defaults.
type modelTake struct {
	model      *modelconfig.Config
	modelAt    **modelconfig.Config
	modelField string
	modelAsked modelconfig.Config
}

// taken is m, or nil when the run takes no model.
func (m *modelTake) taken() *modelTake {
	if m.model == nil {
		return nil
	}
	return m
}

// limitMemberModel holds the run's model, if it takes one, to what root
// allows members (modelTake.limitMemberModel).
func (p *prepared) limitMemberModel(peer Peer, pol modelconfig.MemberPolicy) error {
	m := p.state.memberModel()
	if m == nil {
		return nil
	}
	return m.limitMemberModel(peer, pol)
}
