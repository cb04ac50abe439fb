package oracle

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"sort"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/netproxy/netpolicy"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
	"github.com/authbench/authbench/tracer/trace"
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
	Events []trace.Event
	// Summary is whether the event log ended with its summary line, and
	// Lost the events it says were lost.
	Summary bool
	Lost    uint64
	// Network are the run's connection attempts (its network log; none
	// when the run was not mediated).
	Network []netpolicy.Event
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
		req.Task.Policy = data
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
	data, err := runapi.ReadLog(ctx, api, run.ID, runapi.LogEvents)
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
func ParseEvents(data []byte) (events []trace.Event, summary bool, lost uint64, err error) {
	end, err := audit.ReadLog(bytes.NewReader(data), func(ev *trace.Event) error {
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
	_, runLost := run.TraceCounts()
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
		return &IncompleteTraceError{Task: t.Name, RunID: run.ID, Lost: runLost, Reason: "the event log was not finished"}
	case res.LostEvents > 0 || r.Lost > 0:
		return &IncompleteTraceError{Task: t.Name, RunID: run.ID, Lost: max(res.LostEvents, r.Lost),
			Reason: fmt.Sprintf("%d events lost", max(res.LostEvents, r.Lost))}
	case !r.Summary:
		return &IncompleteTraceError{Task: t.Name, RunID: run.ID, Reason: "the event log has no summary line"}
	}
	return nil
}

// ParseNetworkEvents reads a run's network log (docs/trace-events.md,
// "Network events"): one JSON event per line; blank lines are skipped.
func ParseNetworkEvents(data []byte) ([]netpolicy.Event, error) {
	var out []netpolicy.Event
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var e netpolicy.Event
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, fmt.Errorf("network log line %d: %w", n, err)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

// RecordedHosts are the host:port entries the agent of a run connected
// to (allowed, connected; netpolicy.Event.Agents: never a compose
// service's own connections nor the set-up's, the rule of the run's
// denials and exposure), as the network axis's required
// entries: names as the client asked for them (services of the run by
// their names, in a run of a task that declares the axis), without those
// an implicit entry covers. A run's own loopback reached by address
// (127.0.0.1, a service's healthcheck or a client dialling the address)
// is left out: it names no host. Sorted, without duplicates.
func RecordedHosts(events []netpolicy.Event, spec policy.NetworkSpec) []policy.HostPattern {
	seen := map[string]policy.HostPattern{}
	for _, e := range events {
		if !e.Reached() || !e.Agents() {
			continue
		}
		p, err := policy.ParseHostPattern(e.Target())
		if err != nil || !p.IsExact() {
			continue
		}
		if a, err := netip.ParseAddr(p.Host()); err == nil && a.IsLoopback() && e.Local {
			continue
		}
		covered := false
		for _, im := range spec.Implicit {
			covered = covered || im.Covers(p)
		}
		if !covered {
			seen[p.String()] = p
		}
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]policy.HostPattern, len(keys))
	for i, k := range keys {
		out[i] = seen[k]
	}
	return out
}
