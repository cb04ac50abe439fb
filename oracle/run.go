package oracle

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
	"github.com/authbench/authbench/tracer"
)

// RunOptions are the settings every run of the oracle shares.
type RunOptions struct {
	// BaseMap maps FROM images to local ones (NAME=IMAGE).
	BaseMap map[string]string
	// Semantics is how a policy becomes Landlock rules in replays
	// ("published" or "precise"; "" the daemon's default).
	Semantics string
}

// replay is one task run through the API and what it left.
type replay struct {
	Run    *runapi.Run
	Result *runapi.TaskResult
	Events []tracer.Event
	// Summary is whether the event log ended with its summary line, and
	// Lost the events it says were lost.
	Summary bool
	Lost    uint64
}

// runTask runs agent on task under source (π = pol for the policy
// source) and reads back its result and events.
func runTask(ctx context.Context, api runapi.API, t *tasks.Task, ro RunOptions, source, agent string, pol *policy.Policy) (*replay, error) {
	req := &runapi.RunRequest{Task: &runapi.TaskRequest{Dir: t.Dir, PolicySource: source, Agent: agent, BaseMap: ro.BaseMap}}
	if pol != nil {
		data, err := json.Marshal(pol)
		if err != nil {
			return nil, err
		}
		req.Policy = data
	}
	if err := setSemantics(req, ro.Semantics); err != nil {
		return nil, err
	}
	run, err := runapi.RunTask(ctx, api, req)
	if err != nil {
		return nil, fmt.Errorf("task %s, agent %s, %s: %w", t.Name, agent, source, err)
	}
	if run.TaskResult == nil {
		return nil, fmt.Errorf("task %s, agent %s, %s: run %s ended %s without a result: %s", t.Name, agent, source, run.ID, run.State, run.Error)
	}
	r := &replay{Run: run, Result: run.TaskResult}
	data, err := runapi.ReadLog(ctx, api, run.ID, "events")
	if err != nil {
		return nil, err
	}
	if r.Events, r.Summary, r.Lost, err = ParseEvents(data); err != nil {
		return nil, fmt.Errorf("events of run %s: %w", run.ID, err)
	}
	return r, nil
}

// ParseEvents reads an event log (audit.ReadLog): its events, whether it
// ended with its summary line {"op":"summary","events":N,"lost":M}, and
// that line's lost count.
func ParseEvents(data []byte) (events []tracer.Event, summary bool, lost uint64, err error) {
	end, err := audit.ReadLog(bytes.NewReader(data), func(ev *tracer.Event) error {
		events = append(events, *ev)
		return nil
	})
	if err != nil {
		return nil, false, 0, err
	}
	if end.Summary != nil {
		summary, lost = true, end.Summary.Lost
	}
	return events, summary, lost, nil
}

// checkRecording refuses a recording run that cannot teach a spec: it
// could not be carried out, the oracle timed out or failed V_u, or its
// trace is incomplete.
func checkRecording(t *tasks.Task, r *replay, verifierOutput, agentStderr string) error {
	res, run := r.Result, r.Run
	switch {
	case res.TimedOut:
		return &TimeoutError{Task: t.Name, RunID: run.ID, TimeoutS: t.Config.Agent.TimeoutSec}
	case res.Error != "":
		return fmt.Errorf("task %s: oracle run %s could not be carried out: %s", t.Name, run.ID, res.Error)
	case !res.Utility:
		reason := "the utility verifier failed"
		if res.VerifierError != "" {
			reason += ": " + res.VerifierError
		}
		return &BrokenTaskError{Task: t.Name, RunID: run.ID, ExitCode: res.ExitCode, Reason: reason,
			VerifierOutput: verifierOutput, AgentStderr: agentStderr}
	case !res.Traced:
		return &IncompleteTraceError{Task: t.Name, RunID: run.ID, Reason: "the run was not traced (the daemon has no tracer)"}
	case run.TraceIncomplete:
		return &IncompleteTraceError{Task: t.Name, RunID: run.ID, Lost: run.LostEvents, Reason: "the event log was not finished"}
	case res.LostEvents > 0 || r.Lost > 0:
		return &IncompleteTraceError{Task: t.Name, RunID: run.ID, Lost: max(res.LostEvents, r.Lost),
			Reason: fmt.Sprintf("%d events lost", max(res.LostEvents, r.Lost))}
	case !r.Summary:
		return &IncompleteTraceError{Task: t.Name, RunID: run.ID, Reason: "the event log has no summary line"}
	}
	return nil
}
