package agent

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"time"

	"github.com/authbench/authbench/internal/safefile"
)

// SchemaVersion is the ATIF version the trajectories follow.
const SchemaVersion = "ATIF-v1.4"

// Step extra keys written by the loop.
const (
	// StepExtraToolResults maps a tool_call_id to the Observation.Extra of
	// that call (ATIF's observation results have no extra field).
	StepExtraToolResults = "tool_results"
	// StepExtraTruncated lists what of the step was cut to MaxField bytes
	// ("content", "arguments:<tool_call_id>", "observation:<tool_call_id>",
	// or "response" for a stream cut at MaxBody).
	StepExtraTruncated = "truncated"
	// StepExtraInvalidArguments maps a tool_call_id to the raw arguments
	// text of a call whose arguments were not a JSON object (the step's
	// tool_calls carry {} for it).
	StepExtraInvalidArguments = "invalid_arguments"
	// StepExtraDroppedCalls is how many tool calls of the answer past
	// MaxCallsPerTurn were dropped unread.
	StepExtraDroppedCalls = "dropped_tool_calls"
	// StepExtraOverLimit says why an answer was not kept: it would have
	// passed a limit (the loop ended, StopLimits).
	StepExtraOverLimit = "over_limit"
)

// Root extra keys of a trajectory written by the loop.
const (
	TrajectoryExtraStopReason = "stop_reason" // Outcome.Reason
	TrajectoryExtraError      = "error"       // Outcome.Err's text, when not finished
)

// Trajectory is an ATIF v1.4 trajectory (Harbor's Agent Trajectory
// Interchange Format): the whole interaction of one loop.
type Trajectory struct {
	SchemaVersion string         `json:"schema_version"`
	SessionID     string         `json:"session_id"`
	Agent         AgentInfo      `json:"agent"`
	Steps         []Step         `json:"steps"`
	Notes         string         `json:"notes,omitempty"`
	FinalMetrics  *FinalMetrics  `json:"final_metrics,omitempty"`
	Extra         map[string]any `json:"extra,omitempty"`
}

// AgentInfo is ATIF's agent object.
type AgentInfo struct {
	Name      string         `json:"name"`
	Version   string         `json:"version"`
	ModelName string         `json:"model_name,omitempty"`
	Extra     map[string]any `json:"extra,omitempty"`
}

// Step sources.
const (
	SourceSystem = "system"
	SourceUser   = "user"
	SourceAgent  = "agent"
)

// Step is one system prompt, user message or agent turn (model response,
// its tool calls and their observations).
type Step struct {
	StepID           int              `json:"step_id"`
	Timestamp        string           `json:"timestamp,omitempty"`
	Source           string           `json:"source"`
	ModelName        string           `json:"model_name,omitempty"`
	Message          string           `json:"message"`
	ReasoningContent string           `json:"reasoning_content,omitempty"`
	ToolCalls        []ToolCall       `json:"tool_calls,omitempty"`
	Observation      *StepObservation `json:"observation,omitempty"`
	Metrics          *Metrics         `json:"metrics,omitempty"`
	Extra            map[string]any   `json:"extra,omitempty"`
}

// ToolCall is one function call of an agent step.
type ToolCall struct {
	ToolCallID   string          `json:"tool_call_id"`
	FunctionName string          `json:"function_name"`
	Arguments    json.RawMessage `json:"arguments"` // always a JSON object
}

// StepObservation holds the results of a step's tool calls.
type StepObservation struct {
	Results []ObservationResult `json:"results"`
}

// ObservationResult is what one tool call returned.
type ObservationResult struct {
	SourceCallID string `json:"source_call_id,omitempty"`
	Content      string `json:"content,omitempty"`
}

// Metrics are the token counts of one agent step.
type Metrics struct {
	PromptTokens     int64          `json:"prompt_tokens"`
	CompletionTokens int64          `json:"completion_tokens"`
	CachedTokens     int64          `json:"cached_tokens,omitempty"`
	Extra            map[string]any `json:"extra,omitempty"`
}

// FinalMetrics sums a trajectory's metrics.
type FinalMetrics struct {
	TotalPromptTokens     int64          `json:"total_prompt_tokens"`
	TotalCompletionTokens int64          `json:"total_completion_tokens"`
	TotalCachedTokens     int64          `json:"total_cached_tokens,omitempty"`
	TotalSteps            int            `json:"total_steps"`
	Extra                 map[string]any `json:"extra,omitempty"`
}

// newTrajectory starts a trajectory with a random session id.
func newTrajectory(name, version, model string) *Trajectory {
	return &Trajectory{
		SchemaVersion: SchemaVersion,
		SessionID:     newSessionID(),
		Agent:         AgentInfo{Name: name, Version: version, ModelName: model},
		Steps:         []Step{},
	}
}

// newSessionID returns a random UUID (version 4).
func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// add appends a step, numbering it, and returns it for filling in.
func (t *Trajectory) add(s Step) *Step {
	s.StepID = len(t.Steps) + 1
	if s.Timestamp == "" {
		s.Timestamp = time.Now().UTC().Format(time.RFC3339Nano)
	}
	t.Steps = append(t.Steps, s)
	return &t.Steps[len(t.Steps)-1]
}

// finish sets final_metrics from the steps' metrics.
func (t *Trajectory) finish() {
	fm := &FinalMetrics{TotalSteps: len(t.Steps)}
	for _, s := range t.Steps {
		if s.Metrics != nil {
			fm.TotalPromptTokens += s.Metrics.PromptTokens
			fm.TotalCompletionTokens += s.Metrics.CompletionTokens
			fm.TotalCachedTokens += s.Metrics.CachedTokens
		}
	}
	t.FinalMetrics = fm
}

// WriteFile writes the trajectory as JSON, each step compact on a line
// of its own (mode 0644), never through a symbolic link planted at path.
// Steps are not indented: the indentation of a model's deeply nested
// arguments would multiply their size, and the loop bounds the compact
// size (MaxTrajectoryBytes).
func (t *Trajectory) WriteFile(path string) error {
	data, err := t.encode()
	if err != nil {
		return fmt.Errorf("encode trajectory: %w", err)
	}
	if err := safefile.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("write trajectory: %w", err)
	}
	return nil
}

// encode is the trajectory's JSON: the root fields indented, the steps
// one a line.
func (t *Trajectory) encode() ([]byte, error) {
	root := *t
	root.Steps = []Step{}
	head, err := json.MarshalIndent(&root, "", "  ")
	if err != nil {
		return nil, err
	}
	// The first "steps": [] is the field: inside strings quotes are escaped.
	const empty = `"steps": []`
	i := bytes.Index(head, []byte(empty))
	if i < 0 {
		return nil, fmt.Errorf("no steps field in %q", head)
	}
	var b bytes.Buffer
	b.Write(head[:i])
	b.WriteString(`"steps": [`)
	for n, s := range t.Steps {
		line, err := json.Marshal(&s)
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", s.StepID, err)
		}
		if n > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n    ")
		b.Write(line)
	}
	if len(t.Steps) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteByte(']')
	b.Write(head[i+len(empty):])
	b.WriteByte('\n')
	return b.Bytes(), nil
}
