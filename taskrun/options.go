package taskrun

import (
	"fmt"

	"github.com/authbench/authbench/capability"
	"github.com/authbench/authbench/taskrun/internal/runbox"
)

// Options describe one task run: the task, the policy and agent, and
// the run's collaborators (runbox.Options documents each field; an
// exploration, taskrun/explore, takes the same).
type Options = runbox.Options

// AgentCapabilities is the set the agent of o runs with: o.Capabilities,
// else the task's, sorted and canonical; an unknown name is an error.
func AgentCapabilities(o Options) ([]string, error) {
	if o.Capabilities == nil {
		return o.Task.Config.Environment.Capabilities(), nil
	}
	out := make([]string, 0, len(o.Capabilities))
	for _, n := range o.Capabilities {
		c, ok := capability.Canonical(n)
		if !ok {
			return nil, fmt.Errorf("agent capabilities: unknown capability %q", n)
		}
		out = append(out, c)
	}
	return capability.Sort(out), nil
}
