package permreq

import (
	"context"
	"fmt"
	"strings"

	"github.com/authbench/authbench/policy"
)

// Decider names.
const (
	DeciderSpec  = "spec"
	DeciderDeny  = "deny"
	DeciderAllow = "allow"
	// DeciderModel prefixes a judge model: model:MODEL asks MODEL through
	// the run's model client (the run makes that decider: NewDecider's
	// judge).
	DeciderModel = "model:"
)

// Deciders lists the deciders a run may name.
var Deciders = []string{DeciderSpec, DeciderDeny, DeciderAllow, DeciderModel + "MODEL"}

// Decision is a decider's answer.
type Decision struct {
	Granted bool
	// Why says what decided, for the agent and the record.
	Why string
}

// Decider answers requests. Decide is given the request and its grant
// as compiled (Compile); it must return by ctx's end.
type Decider interface {
	Name() string
	Decide(ctx context.Context, req Request, g *Grant) Decision
}

// CheckDecider checks a decider name without a task (CLI flags: exit 2).
func CheckDecider(name string) error {
	for _, d := range Deciders[:3] {
		if name == d {
			return nil
		}
	}
	if m, ok := strings.CutPrefix(name, DeciderModel); ok {
		if strings.TrimSpace(m) == "" || len(m) > 256 {
			return fmt.Errorf("decider %q: want model:MODEL", name)
		}
		return nil
	}
	if name == DeciderAsk {
		return fmt.Errorf("decider ask prompts a person at a terminal: task runs do not take it (want %s)", strings.Join(Deciders, ", "))
	}
	return fmt.Errorf("unknown decider %q (want %s)", name, strings.Join(Deciders, ", "))
}

// NewDecider makes the decider name for a task with spec (nil: the task
// has none, which the spec decider needs); judge makes model:MODEL's
// (nil: none can be made here).
func NewDecider(name string, spec *policy.Spec, judge func(model string) (Decider, error)) (Decider, error) {
	if err := CheckDecider(name); err != nil {
		return nil, err
	}
	if m, ok := strings.CutPrefix(name, DeciderModel); ok {
		if judge == nil {
			return nil, fmt.Errorf("decider %s: no model client here", name)
		}
		j, err := judge(m)
		if err != nil {
			return nil, fmt.Errorf("decider %s: %w", name, err)
		}
		return guarded{Decider: j, sens: sensitiveOf(spec)}, nil
	}
	switch name {
	case DeciderDeny:
		return deny{}, nil
	case DeciderAllow:
		return allow{sens: sensitiveOf(spec)}, nil
	}
	if spec == nil {
		return nil, fmt.Errorf("decider spec: the task has no permission spec")
	}
	return specDecider{spec: spec}, nil
}

func sensitiveOf(spec *policy.Spec) *policy.Permissions {
	if spec == nil {
		return nil
	}
	return spec.Sensitive
}

// sensitiveWhy is why a request reaching a sensitive file is refused,
// or "".
func sensitiveWhy(req Request, g *Grant, sens *policy.Permissions) string {
	if q := SensitiveMatch(req, sens); q != "" {
		return fmt.Sprintf("refused: %s is sensitive (%s)", req.Path, q)
	}
	if len(g.Sensitive) > 0 {
		return fmt.Sprintf("refused: the grant would reach the sensitive %s %s (%s)", g.Sensitive[0].Axis, g.Sensitive[0].Path, g.Sensitive[0].Sensitive)
	}
	return ""
}

// guarded refuses what reaches a sensitive file before asking its
// decider (a judge model never sees such a request).
type guarded struct {
	Decider
	sens *policy.Permissions
}

func (g guarded) Decide(ctx context.Context, req Request, gr *Grant) Decision {
	if why := sensitiveWhy(req, gr, g.sens); why != "" {
		return Decision{Why: why}
	}
	return g.Decider.Decide(ctx, req, gr)
}

// deny records and refuses every request.
type deny struct{}

func (deny) Name() string { return DeciderDeny }
func (deny) Decide(context.Context, Request, *Grant) Decision {
	return Decision{Why: "refused: this run grants no requests"}
}

// allow grants every request that reaches no sensitive file.
type allow struct{ sens *policy.Permissions }

func (allow) Name() string { return DeciderAllow }
func (a allow) Decide(_ context.Context, req Request, g *Grant) Decision {
	if why := sensitiveWhy(req, g, a.sens); why != "" {
		return Decision{Why: why}
	}
	return Decision{Granted: true, Why: "granted"}
}

// specDecider is the benchmark's oracle judge: it grants what the task's
// required and implicit entries cover and refuses anything sensitive.
type specDecider struct{ spec *policy.Spec }

func (specDecider) Name() string { return DeciderSpec }
func (d specDecider) Decide(_ context.Context, req Request, g *Grant) Decision {
	if why := sensitiveWhy(req, g, d.spec.Sensitive); why != "" {
		return Decision{Why: why}
	}
	if req.Network && (CoveredHost(req, d.spec.Network.Required) || CoveredHost(req, d.spec.Network.Implicit)) {
		return Decision{Granted: true, Why: "granted: the task's spec covers it"}
	}
	if Covered(req, d.spec.Required.Get(req.Axis)) || Covered(req, d.spec.Implicit.Get(req.Axis)) {
		return Decision{Granted: true, Why: "granted: the task's spec covers it"}
	}
	return Decision{Why: fmt.Sprintf("refused: the task's spec does not cover %s", req)}
}

// Ceiling is every permission decider name could ever grant for a task
// with spec: the domain the tool process that applies grants must hold
// (Landlock cannot widen one). spec: the required entries (the implicit
// ones are every plan's baseline); deny: nothing; allow and a judge
// model: every path.
func Ceiling(name string, spec *policy.Spec) policy.Permissions {
	var out policy.Permissions
	switch {
	case name == DeciderSpec:
		if spec != nil {
			out = spec.Required
		}
	case name == DeciderAllow || strings.HasPrefix(name, DeciderModel):
		all := policy.MustPattern("/**")
		for _, a := range policy.Axes {
			out[a] = []policy.Pattern{all}
		}
	}
	return out
}
