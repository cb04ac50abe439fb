package agent

import (
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

// WriteFile writes the trajectory as indented JSON (mode 0644), never
// through a symbolic link planted at path.
func (t *Trajectory) WriteFile(path string) error {
	data, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return fmt.Errorf("encode trajectory: %w", err)
	}
	if err := safefile.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write trajectory: %w", err)
	}
	return nil
}
