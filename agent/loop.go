package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"go.uber.org/zap"

	"github.com/authbench/authbench/agent/modelconfig"
)

// MaxCallsPerTurn bounds the tool calls taken from one response: the
// others are dropped while the response is read (counted in the step's
// extra "dropped_tool_calls", and the model is told), before they reach
// the history, the trajectory or any map.
const MaxCallsPerTurn = 32

// MaxTrajectoryBytes bounds a loop's trajectory as WriteFile writes it:
// a turn that would pass it ends the loop (StopLimits).
const MaxTrajectoryBytes = 32 << 20

// trajectoryBudget is what the steps may take of MaxTrajectoryBytes; the
// rest is for the root fields and what is added after the loop.
const trajectoryBudget = MaxTrajectoryBytes - 1<<20

// itemOverhead is charged for each message, step, call and result
// beside its texts: field names, ids, numbers, and the event lines a
// task run adds to a call's extra afterwards.
const itemOverhead = 256

// DefaultRepairs is how often a rejected final answer is re-asked when
// Loop.Repairs is 0.
const DefaultRepairs = 1

// ReminderText answers a response without tool calls when the loop has no
// Final (the execution agent).
const ReminderText = "No tool was called. Act by calling one of the tools; call finish when the task is done."

// Loop runs a model with tools until it finishes.
type Loop struct {
	Config modelconfig.Config // resolved
	Tools  []Tool
	// Final judges an answer given without tool calls. nil error: accepted,
	// StopFinished, Outcome.Final is the content. An error: the model is
	// re-asked with the error's text, at most Repairs times (default 1),
	// then StopInvalidAnswer. Final == nil (the execution agent): an answer
	// without tool calls is answered with a reminder to call a tool or
	// finish, and counts as a turn.
	Final   func(content string) error
	Repairs int // re-asks after a rejected answer (0: DefaultRepairs; negative: none)

	AgentName, AgentVersion string // for the trajectory
	Log                     *zap.Logger
	HTTPClient              *http.Client // nil: default
}

// Outcome is how a loop ended.
type Outcome struct {
	Reason     modelconfig.StopReason
	Final      string      // accepted final answer, or the last one given (StopInvalidAnswer)
	Summary    string      // finish tool's summary, if any (Observation.Extra["summary"])
	Turns      int         // model calls that returned a response
	Usage      Usage       // tokens summed over the turns
	Err        error       // why it stopped, when not finished (model error, rejection, ctx)
	Trajectory *Trajectory // ATIF v1.4, always set; never contains the API key
}

// run is the state of one Loop.Run.
type run struct {
	l       *Loop
	cfg     modelconfig.Config
	log     *zap.Logger
	client  *client
	tools   map[string]*Tool
	names   []string
	msgs    []openai.ChatCompletionMessageParamUnion
	traj    *Trajectory
	out     *Outcome
	repairs int
	ids     map[string]bool // tool call ids seen
	// hist and traj are the bytes the history (JSON, as sent) and the
	// trajectory (as written) hold so far, at most.
	histBytes, trajBytes int64
}

// Run runs the loop: the system prompt and the user message, then model
// calls and tool calls until the model finishes, the turns run out, the
// context ends or the model fails.
func (l *Loop) Run(ctx context.Context, system, user string) *Outcome {
	r := &run{l: l, log: l.Log, tools: map[string]*Tool{}, out: &Outcome{}, ids: map[string]bool{}}
	if r.log == nil {
		r.log = zap.NewNop()
	}
	r.traj = newTrajectory(l.AgentName, l.AgentVersion, l.Config.Model)
	r.out.Trajectory = r.traj
	defer r.end()
	cfg, err := l.Config.Resolve(nil)
	if err != nil {
		r.out.Reason, r.out.Err = modelconfig.StopModelError, fmt.Errorf("model config: %w", err)
		return r.out
	}
	r.cfg = cfg
	r.client = newClient(cfg, l.HTTPClient)
	for i := range l.Tools {
		t := &l.Tools[i]
		r.tools[t.Name] = t
		r.names = append(r.names, t.Name)
	}
	r.repairs = l.Repairs
	if r.repairs == 0 {
		r.repairs = DefaultRepairs
	}
	if system != "" {
		n := jsonLen(system) + itemOverhead
		if !r.charge(n, n, "the system prompt") {
			return r.out
		}
		r.msgs = append(r.msgs, openai.SystemMessage(system))
		r.traj.add(Step{Source: SourceSystem, Message: system})
	}
	if !r.addUser(user) {
		return r.out
	}
	r.loop(ctx)
	r.log.Info("agent loop ended", zap.String("model", cfg.Model), zap.String("reason", string(r.out.Reason)),
		zap.Int("turns", r.out.Turns), zap.Int64("total_tokens", r.out.Usage.TotalTokens), zap.Error(r.out.Err))
	return r.out
}

// end completes the trajectory: why it stopped, final metrics.
func (r *run) end() {
	r.traj.Extra = map[string]any{TrajectoryExtraStopReason: r.out.Reason}
	if r.out.Err != nil {
		r.traj.Extra[TrajectoryExtraError] = r.out.Err.Error()
	}
	r.traj.finish()
}

// addUser adds a user message; false when it does not fit the limits
// (the loop ends).
func (r *run) addUser(text string) bool {
	n := jsonLen(text) + itemOverhead
	if !r.charge(n, n, "a user message") {
		return false
	}
	r.msgs = append(r.msgs, openai.UserMessage(text))
	r.traj.add(Step{Source: SourceUser, Message: text})
	return true
}

// charge counts hist bytes more in the history and traj more in the
// trajectory; when either would pass its limit, nothing is counted and
// the loop ends (StopLimits) naming what did not fit.
func (r *run) charge(hist, traj int64, what string) bool {
	switch {
	case r.histBytes+hist > r.cfg.MaxHistoryBytes:
		r.stop(modelconfig.StopLimits, fmt.Errorf("%s (%d bytes) would bring the conversation to %d bytes, over its limit of %d (max_history_bytes)",
			what, hist, r.histBytes+hist, r.cfg.MaxHistoryBytes))
		return false
	case r.trajBytes+traj > trajectoryBudget:
		r.stop(modelconfig.StopLimits, fmt.Errorf("%s (%d bytes) would bring the trajectory to %d bytes, over its limit of %d",
			what, traj, r.trajBytes+traj, trajectoryBudget))
		return false
	}
	r.histBytes += hist
	r.trajBytes += traj
	return true
}

// stop ends the loop with a reason.
func (r *run) stop(reason modelconfig.StopReason, err error) {
	r.out.Reason, r.out.Err = reason, err
}

func (r *run) timeout(ctx context.Context) {
	r.stop(modelconfig.StopTimeout, fmt.Errorf("agent stopped: %w", context.Cause(ctx)))
}

func (r *run) loop(ctx context.Context) {
	for {
		if ctx.Err() != nil {
			r.timeout(ctx)
			return
		}
		if r.out.Turns >= r.cfg.MaxTurns {
			r.stop(modelconfig.StopTurnLimit, fmt.Errorf("no finish within %d model calls", r.cfg.MaxTurns))
			return
		}
		start := time.Now()
		resp, err := r.client.complete(ctx, r.msgs, r.l.Tools)
		if err != nil {
			if ctx.Err() != nil {
				r.timeout(ctx)
				return
			}
			r.stop(modelconfig.StopModelError, err)
			return
		}
		if r.turn(ctx, resp, time.Since(start)) {
			return
		}
	}
}

// turn handles one response; true when the loop ends.
func (r *run) turn(ctx context.Context, resp *response, took time.Duration) bool {
	r.out.Turns++
	r.out.Usage.add(resp.Usage)
	args, argErrs, hist, traj := r.checkCalls(resp)
	if !r.charge(hist, traj, fmt.Sprintf("answer %d", r.out.Turns)) {
		r.traj.add(Step{Source: SourceAgent, ModelName: r.cfg.Model, Extra: map[string]any{StepExtraOverLimit: r.out.Err.Error()}})
		return true
	}
	step := r.recordAnswer(resp, took)
	r.msgs = append(r.msgs, assistantMessage(resp, args))
	if len(resp.ToolCalls) == 0 {
		return r.answer(resp.Content)
	}
	done, over := r.runCalls(ctx, step, resp, args, argErrs)
	if over {
		return true
	}
	if resp.DroppedCalls > 0 && !done && !r.addUser(DroppedCallsText(resp.DroppedCalls)) {
		return true
	}
	if done {
		r.stop(modelconfig.StopFinished, nil)
		return true
	}
	if ctx.Err() != nil {
		r.timeout(ctx)
		return true
	}
	return false
}

// checkCalls gives every call of resp an id of its own to link its
// result (a missing or repeated id is replaced, before the history is
// built from it) and checks its arguments; hist and traj are what the
// answer adds to the history and to the trajectory.
func (r *run) checkCalls(resp *response) (args []json.RawMessage, argErrs []error, hist, traj int64) {
	for i := range resp.ToolCalls {
		c := &resp.ToolCalls[i]
		if c.ID == "" || r.ids[c.ID] {
			c.ID = fmt.Sprintf("call_%d_%d", r.out.Turns, i+1)
		}
		r.ids[c.ID] = true
	}
	args = make([]json.RawMessage, len(resp.ToolCalls))
	argErrs = make([]error, len(resp.ToolCalls))
	hist = jsonLen(resp.Content) + itemOverhead
	traj = hist + jsonLen(resp.Reasoning)
	for i, c := range resp.ToolCalls {
		args[i], argErrs[i] = checkArguments(c)
		n := jsonLen(c.ID) + jsonLen(c.Name) + rawLen(args[i]) + itemOverhead
		hist += n
		traj += n
		if argErrs[i] != nil {
			traj += jsonLen(c.Arguments)
		}
	}
	return args, argErrs, hist, traj
}

// recordAnswer adds the model's answer to the trajectory as a step of
// its own, and logs the turn.
func (r *run) recordAnswer(resp *response, took time.Duration) *Step {
	step := r.traj.add(Step{
		Source: SourceAgent, ModelName: r.cfg.Model, Message: resp.Content, ReasoningContent: resp.Reasoning,
		Metrics: &Metrics{PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens, CachedTokens: resp.Cached},
	})
	if len(resp.Truncated) > 0 {
		setExtra(step, StepExtraTruncated, resp.Truncated)
	}
	if resp.DroppedCalls > 0 {
		setExtra(step, StepExtraDroppedCalls, resp.DroppedCalls)
	}
	var called []string
	for _, c := range resp.ToolCalls {
		called = append(called, c.Name)
	}
	r.log.Info("model turn", zap.String("model", r.cfg.Model), zap.Int("turn", r.out.Turns),
		zap.Int64("prompt_tokens", resp.Usage.PromptTokens), zap.Int64("completion_tokens", resp.Usage.CompletionTokens),
		zap.Strings("tools", called), zap.Int("dropped_calls", resp.DroppedCalls), zap.Int("content_bytes", len(resp.Content)), zap.Duration("took", took))
	return step
}

// runCalls runs the answer's tool calls in order (none after one that
// finished the loop, or once the time is up), each result recorded in
// step and the history; done: a call finished the loop; over: a result
// went over the loop's limits (the loop has stopped).
func (r *run) runCalls(ctx context.Context, step *Step, resp *response, args []json.RawMessage, argErrs []error) (done, over bool) {
	step.Observation = &StepObservation{Results: []ObservationResult{}}
	for i, c := range resp.ToolCalls {
		step.ToolCalls = append(step.ToolCalls, ToolCall{ToolCallID: c.ID, FunctionName: c.Name, Arguments: args[i]})
		if argErrs[i] != nil {
			setMapExtra(step, StepExtraInvalidArguments, c.ID, c.Arguments)
		}
		var text string
		var extra map[string]any
		switch {
		case done:
			text = "not run: the loop finished with an earlier call"
		case ctx.Err() != nil:
			text = "not run: the agent's time is up"
		default:
			obs := r.call(ctx, c, args[i], argErrs[i])
			text = obs.Text
			if obs.Extra != nil {
				extra = obs.Extra
				if s, ok := obs.Extra[ExtraSummary].(string); ok {
					r.out.Summary = s
				}
			}
			done = obs.Done
		}
		cut := false
		if t, c := bound(text); c {
			text, cut = t+fmt.Sprintf("\n[observation cut to %d bytes]", MaxField), true
		}
		n := jsonLen(text) + itemOverhead
		if !r.charge(n, n+extraLen(extra), "the result of "+c.ID) {
			return done, true
		}
		if extra != nil {
			setMapExtra(step, StepExtraToolResults, c.ID, extra)
		}
		if cut {
			appendExtra(step, StepExtraTruncated, "observation:"+c.ID)
		}
		step.Observation.Results = append(step.Observation.Results, ObservationResult{SourceCallID: c.ID, Content: text})
		r.msgs = append(r.msgs, openai.ToolMessage(text, c.ID))
	}
	return done, false
}

// DroppedCallsText tells the model that n tool calls of its answer were
// dropped.
func DroppedCallsText(n int) string {
	return fmt.Sprintf("%d more tool calls of your answer were dropped without running: at most %d tool calls are taken from one answer.", n, MaxCallsPerTurn)
}

// answer judges a response without tool calls; true when the loop ends.
func (r *run) answer(content string) bool {
	if r.l.Final == nil {
		return !r.addUser(ReminderText)
	}
	r.out.Final = content
	err := r.l.Final(content)
	if err == nil {
		r.stop(modelconfig.StopFinished, nil)
		return true
	}
	if r.repairs <= 0 {
		r.stop(modelconfig.StopInvalidAnswer, fmt.Errorf("answer rejected: %w", err))
		return true
	}
	r.repairs--
	r.log.Info("answer rejected, re-asking", zap.String("model", r.cfg.Model), zap.Int("turn", r.out.Turns), zap.Error(err))
	return !r.addUser(RepairText(err))
}

// RepairText is the user message re-asking after a rejected answer.
func RepairText(err error) string {
	return fmt.Sprintf("Your answer was rejected: %v\nGive the whole answer again, corrected, and nothing else.", err)
}

// call runs one tool call and returns what the model reads.
func (r *run) call(ctx context.Context, c toolCall, args json.RawMessage, argErr error) Observation {
	t, ok := r.tools[c.Name]
	if !ok {
		name := c.Name
		if len(name) > 100 {
			name = name[:100] + "..."
		}
		return Observation{Text: fmt.Sprintf("error: no tool named %q (tools: %s)", name, strings.Join(r.names, ", "))}
	}
	if argErr != nil {
		return Observation{Text: fmt.Sprintf("error: arguments of %s are not valid JSON: %v", c.Name, argErr)}
	}
	obs, err := t.Run(ctx, args)
	if err != nil {
		obs.Text = "error: " + err.Error()
		obs.Done = false
	}
	r.log.Debug("tool call", zap.String("tool", c.Name), zap.String("id", c.ID), zap.Int("observation_bytes", len(obs.Text)), zap.Error(err))
	return obs
}

// checkArguments returns a call's arguments as a JSON object ({} for an
// empty text), or {} and why they are not one.
func checkArguments(c toolCall) (json.RawMessage, error) {
	s := strings.TrimSpace(c.Arguments)
	if s == "" {
		return json.RawMessage("{}"), nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &obj); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			err = fmt.Errorf("want a JSON object, got %s", ute.Value)
		}
		return json.RawMessage("{}"), err
	}
	if obj == nil {
		return json.RawMessage("{}"), errors.New("want a JSON object, got null")
	}
	return json.RawMessage(s), nil
}

// assistantMessage is a response as history for the next call, with the
// checked arguments: {} for malformed ones (whose error the tool message
// tells), as some servers (vLLM) refuse a history with invalid JSON there.
func assistantMessage(resp *response, args []json.RawMessage) openai.ChatCompletionMessageParamUnion {
	m := openai.ChatCompletionAssistantMessageParam{}
	if resp.Content != "" || len(resp.ToolCalls) == 0 {
		m.Content.OfString = openai.String(resp.Content)
	}
	for i, c := range resp.ToolCalls {
		m.ToolCalls = append(m.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
			OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
				ID:       c.ID,
				Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: string(args[i])},
			},
		})
	}
	return openai.ChatCompletionMessageParamUnion{OfAssistant: &m}
}

func setExtra(s *Step, key string, v any) {
	if s.Extra == nil {
		s.Extra = map[string]any{}
	}
	s.Extra[key] = v
}

func appendExtra(s *Step, key, v string) {
	if s.Extra == nil {
		s.Extra = map[string]any{}
	}
	l, _ := s.Extra[key].([]string)
	s.Extra[key] = append(l, v)
}

func setMapExtra(s *Step, key, id string, v any) {
	if s.Extra == nil {
		s.Extra = map[string]any{}
	}
	m, _ := s.Extra[key].(map[string]any)
	if m == nil {
		m = map[string]any{}
		s.Extra[key] = m
	}
	m[id] = v
}
