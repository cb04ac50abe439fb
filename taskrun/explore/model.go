package explore

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"sync/atomic"

	"github.com/authbench/authbench/agent"
	"github.com/authbench/authbench/agent/modelconfig"
	"github.com/authbench/authbench/agent/toolbox"
	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/taskrun/internal/runbox"
	"github.com/authbench/authbench/taskrun/internal/session"
	"github.com/authbench/authbench/tracer/trace"
)

// ModelExploration is how an openai generator's exploration went.
type ModelExploration struct {
	Exploration
	// Outcome is the model's loop (its Final is the answer); nil when
	// the tool process could not start.
	Outcome *agent.Outcome `json:"-"`
	// ToolCalls counts the tool calls that reached the tool process.
	ToolCalls int `json:"tool_calls"`
}

// RunModel runs an openai generator: loop (its Config resolved, its
// Final the answer's judge) here with toolbox.ExplorationTools, whose
// calls run in the tool process (authbench agent-tools) as the
// container's confined, traced agent, under the generation policy (the
// tool process is its one program besides the inspection tools) and
// GenerationFilter, for o.Timeout. system and user are the loop's
// prompts. The trajectory is written to the run's runapi.FileTrajectory.
func RunModel(ctx context.Context, o Options, loop agent.Loop, system, user string) (*ModelExploration, error) {
	r, err := newExplorer(o.Options)
	if err != nil {
		return nil, err
	}
	x := &ModelExploration{Exploration: Exploration{Denials: []audit.Denial{}, FilesRead: []string{}, Executable: []string{}}}
	root, cleanup, err := r.prepareExploration(ctx, &x.Exploration)
	if err != nil {
		return x, err
	}
	defer cleanup()
	if err := session.Prepare(r.Box); err != nil {
		return x, err
	}
	if err := r.compileGenerationPlan(root, []string{runbox.BinaryInContainer}, &x.Exploration); err != nil {
		return x, err
	}
	if r.Seccomp, err = GenerationFilter(); err != nil {
		return x, err
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var calls atomic.Int64
	tools := func(c *toolbox.Client) []agent.Tool {
		ts := toolbox.ExplorationTools(c)
		for i := range ts {
			run := ts[i].Run
			ts[i].Run = func(ctx context.Context, args json.RawMessage) (agent.Observation, error) {
				calls.Add(1)
				return run(ctx, args)
			}
		}
		return ts
	}
	if o.inspect != nil {
		o.inspect("before", r.Rootfs.Path)
		defer func() { o.inspect("after", r.Rootfs.Path) }()
	}
	res, err := session.Run(ctx, r.Box, session.Options{
		Tools: tools, Loop: loop, System: system, User: user, Timeout: r.AgentTimeout(), Trace: r.StartAgentTrace,
	})
	// A failure to close the agent's logs was logged; the exploration
	// is described by its other fields.
	out := res.Outcome
	x.Outcome, x.ToolCalls = out, int(calls.Load())
	x.ExitCode, x.TimedOut, x.DurationS, x.SetupMS = res.ExitCode, out != nil && out.Reason == modelconfig.StopTimeout, res.DurationS, res.SetupMS
	x.Traced, x.Events, x.LostEvents, x.Denials = res.Traced, res.Events, res.LostEvents, append(x.Denials, res.Denials...)
	if x.Traced {
		x.FilesRead, x.FilesReadDropped = r.filesReadFromLogs()
	}
	if out != nil && out.Trajectory != nil {
		if werr := out.Trajectory.WriteFile(filepath.Join(r.Dir, runapi.FileTrajectory)); werr != nil {
			err = errors.Join(err, werr)
		}
	}
	return x, err
}

// filesReadFromLogs lists the files the agent's event logs show opened
// for reading successfully (as exploreTrace does for a cmd: generator),
// but for /proc and /sys: the tool process's runtime reads them itself.
func (r *explorer) filesReadFromLogs() ([]string, int) {
	tr := &exploreTrace{read: map[string]bool{}}
	ess := policy.SandboxEssentials()
	tr.skip = append(ess.Get(policy.Read), policy.MustPattern("/proc/**"), policy.MustPattern("/sys/**"))
	logs, _ := filepath.Glob(filepath.Join(r.Dir, "events*.jsonl"))
	for _, name := range logs {
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		_, _ = audit.ReadLog(f, func(ev *trace.Event) error { tr.observe(ev); return nil })
		f.Close()
	}
	out := make([]string, 0, len(tr.read))
	for p := range tr.read {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, tr.dropped
}
