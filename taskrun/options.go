package taskrun

import (
	"fmt"
	"strings"

	"github.com/authbench/authbench/agent/installed"
	"github.com/authbench/authbench/capability"

	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/taskrun/internal/runbox"
	"github.com/authbench/authbench/taskrun/internal/session"
	"github.com/authbench/authbench/tasks"
)

// agentCmd prefixes a shell-command agent: cmd:"shell command".
const agentCmd = "cmd:"

// Options describe one task run: the task, the policy and agent, and
// the run's collaborators (runbox.Options documents each field; an
// exploration, taskrun/explore, takes the same).
type Options = runbox.Options

// ParseAgent checks an agent name and returns the command line that runs
// it inside the container, with the script it needs readable (if any).
func ParseAgent(t *tasks.Task, agent string) (argv []string, script string, err error) {
	switch {
	case agent == runapi.AgentOracle:
		return []string{"/bin/bash", solutionMount + "/solve.sh"}, solutionMount + "/solve.sh", nil
	case agent == runapi.AgentShortcut:
		if t.AttackSmoke == "" {
			return nil, "", fmt.Errorf("agent shortcut: task %s has no %s", t.Name, tasks.FileAttackSmoke)
		}
		return []string{"/bin/bash", solutionMount + "/attack_smoke.sh"}, solutionMount + "/attack_smoke.sh", nil
	case strings.HasPrefix(agent, agentCmd) && strings.TrimSpace(agent[len(agentCmd):]) != "":
		return []string{"/bin/sh", "-c", agent[len(agentCmd):]}, "", nil
	case strings.HasPrefix(agent, agentOpenAI):
		if err := checkModelAgent(agent); err != nil {
			return nil, "", fmt.Errorf("agent %q: %w", agent, err)
		}
		return session.Argv(runbox.DefaultAgentTimeout), "", nil
	case strings.HasPrefix(agent, installed.Prefix):
		if _, _, _, err := installed.ParseName(agent); err != nil {
			return nil, "", err
		}
		return nil, "", nil // the harness's command is made for the run (installedRun)
	}
	return nil, "", fmt.Errorf("agent %q: want oracle, shortcut, cmd:\"COMMAND\", openai:MODEL or installed:NAME[:MODEL]", agent)
}

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
