package taskrun

import (
	"context"
	"fmt"

	"github.com/authbench/authbench/agent/agentname"
	"github.com/authbench/authbench/agent/installed"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
)

// agentKind is what one kind of agent does in a task run. Each kind is a
// value: the oracle and the shortcut (solutionAgent), cmd:COMMAND
// (commandAgent), authbench's model agent openai:MODEL (modelAgent) and
// each installed harness (installedRun, from agent/installed's Harness
// values). runner.run asks the value at each step and never looks at the
// agent's name; the methods are called in this order, errors carrying
// their runapi.ErrorKind.
type agentKind interface {
	// layers readies what the agent brings beside the task image (built
	// by then) and returns the lower layers its rootfs adds.
	layers(ctx context.Context, r *runner) ([]string, error)
	// prepare puts what the agent needs into its fresh rootfs (the
	// agent's identity resolved) and makes its command line.
	prepare(r *runner) error
	// baseline adds what the agent's own runtime needs to the plan's
	// baseline and returns the widenings that lists, after the plan's.
	baseline(base *policy.Baseline) []policy.Widening
	// run runs the agent until it ends.
	run(ctx context.Context, r *runner) error
	// finish keeps the agent's own transcript, once the verifiers ended
	// (also when the agent failed; not when the run failed before it).
	finish(r *runner)
}

// agentKinds makes the value of each kind of agent name (agentname):
// the one place a kind becomes its value.
var agentKinds = map[agentname.Kind]func(t *tasks.Task, n agentname.Name) (agentKind, error){
	agentname.Oracle: func(*tasks.Task, agentname.Name) (agentKind, error) {
		return solutionAgent{solutionMount + "/solve.sh"}, nil
	},
	agentname.Shortcut:  newShortcut,
	agentname.Cmd:       func(_ *tasks.Task, n agentname.Name) (agentKind, error) { return commandAgent{n.Command}, nil },
	agentname.OpenAI:    func(_ *tasks.Task, n agentname.Name) (agentKind, error) { return &modelAgent{model: n.Model}, nil },
	agentname.Installed: newInstalled,
}

// newAgent parses the agent's name (agentname.Parse) and makes the value
// that runs it for task t.
func newAgent(t *tasks.Task, name string) (agentKind, agentname.Name, error) {
	n, err := agentname.Parse(name)
	if err != nil {
		return nil, n, err
	}
	mk, ok := agentKinds[n.Kind]
	if !ok {
		return nil, n, fmt.Errorf("agent %q: kind %s cannot run a task", name, n.Kind)
	}
	a, err := mk(t, n)
	return a, n, err
}

// CheckAgent checks an agent name for task t as a run would, before
// anything is built: a name of one of the forms (agentname.Forms), a
// harness that exists, a shortcut's script.
func CheckAgent(t *tasks.Task, name string) error {
	_, _, err := newAgent(t, name)
	return err
}

// canRequest reports whether the named agent can make run-time
// permission requests (agentname.Name.CanRequest).
func canRequest(name string) bool {
	n, _ := agentname.Parse(name)
	return n.CanRequest()
}

// newShortcut is the shortcut of a sensitive task with an attack smoke
// script.
func newShortcut(t *tasks.Task, _ agentname.Name) (agentKind, error) {
	if t.AttackSmoke == "" {
		return nil, fmt.Errorf("agent shortcut: task %s has no %s", t.Name, tasks.FileAttackSmoke)
	}
	return solutionAgent{solutionMount + "/attack_smoke.sh"}, nil
}

// newInstalled is the installed agent of the harness the name finds
// (installed.Find); its endpoint and layer are made by layers.
func newInstalled(_ *tasks.Task, n agentname.Name) (agentKind, error) {
	h, err := installed.Find(n)
	if err != nil {
		return nil, err
	}
	return &installedRun{h: h}, nil
}

// solutionAgent runs a script of the task's solution/ (the oracle's
// solve.sh, the shortcut's attack_smoke.sh) with bash: its rootfs gets a
// writable copy of solution/ at /solution, which the plan lets it read
// (not part of the task, so not listed as a widening).
type solutionAgent struct{ script string }

func (solutionAgent) layers(context.Context, *runner) ([]string, error) { return nil, nil }

func (solutionAgent) prepare(r *runner) error {
	if err := r.copySolution(); err != nil {
		return runapi.WithKind(runapi.ErrorRootfs, fmt.Errorf("task %s: %w", r.Options.Task.Name, err))
	}
	return nil
}

func (solutionAgent) baseline(base *policy.Baseline) []policy.Widening {
	addBaseline(base, policy.Read, solutionMount+"/**")
	return nil
}

func (a solutionAgent) run(ctx context.Context, r *runner) error {
	return r.runAgent(ctx, []string{"/bin/bash", a.script})
}

func (solutionAgent) finish(*runner) {}

// commandAgent runs a shell command (cmd:COMMAND) with /bin/sh -c, with
// nothing beside the task's environment.
type commandAgent struct{ command string }

func (commandAgent) layers(context.Context, *runner) ([]string, error) { return nil, nil }

func (commandAgent) prepare(*runner) error { return nil }

func (commandAgent) baseline(*policy.Baseline) []policy.Widening { return nil }

func (a commandAgent) run(ctx context.Context, r *runner) error {
	return r.runAgent(ctx, []string{"/bin/sh", "-c", a.command})
}

func (commandAgent) finish(*runner) {}

// addBaseline adds pattern p on axis a to the baseline (a copy of its
// list: the spec's own is never changed).
func addBaseline(base *policy.Baseline, a policy.Axis, p string) {
	base.Permissions[a] = append(append([]policy.Pattern(nil), base.Permissions[a]...), policy.MustPattern(p))
}
