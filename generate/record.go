package generate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/policy"
)

// Files of a generation in its directory (besides taskrun's exploration
// files).
const (
	// RecordFile is the generation record.
	RecordFile = "generation.json"
	// PolicyFile is the generator's raw answer, valid or not.
	PolicyFile = "policy.json"
	// TrajectoryFile is an openai generator's transcript (ATIF).
	TrajectoryFile = "trajectory.json"
)

// Answer sources.
const (
	FromOutputFile = "output_file"
	FromStdout     = "stdout"
	FromModel      = "model"
	FromBuiltin    = "builtin"
)

// Tokens counts a model's tokens.
type Tokens struct {
	Prompt     int64 `json:"prompt"`
	Completion int64 `json:"completion"`
	Total      int64 `json:"total"`
}

// Record is one generation (generation.json).
type Record struct {
	Task      string `json:"task"`
	Generator string `json:"generator"`
	// Valid: the answer is a policy the scorer's parser accepts and the
	// generator ended normally; Reason says why not.
	Valid  bool   `json:"valid"`
	Reason string `json:"reason,omitempty"`
	// PolicyRaw is the answer as given (also policy.json); Policy is it
	// parsed (absent when invalid).
	PolicyRaw string          `json:"policy_raw"`
	Policy    json.RawMessage `json:"policy,omitempty"`
	// AnswerFrom is where the answer came from (output_file, stdout,
	// model, builtin).
	AnswerFrom string `json:"answer_from,omitempty"`
	// ExitCode is a cmd: generator's exit status (128+n: killed by
	// signal n); absent for the others.
	ExitCode  *int    `json:"exit_code,omitempty"`
	TimedOut  bool    `json:"timed_out"`
	DurationS float64 `json:"duration_s"`
	SetupMS   float64 `json:"setup_ms"`
	// FilesRead are the files the generator opened for reading
	// successfully (from the trace; null when untraced).
	FilesRead        []string `json:"files_read"`
	FilesReadDropped int      `json:"files_read_dropped,omitempty"`
	// SensitiveRead are the files read that match the spec's sensitive
	// read patterns (sensitive tasks): the generator saw them.
	SensitiveRead []string       `json:"sensitive_read,omitempty"`
	Denials       []audit.Denial `json:"denials,omitempty"`
	Traced        bool           `json:"traced"`
	Events        uint64         `json:"events"`
	LostEvents    uint64         `json:"lost_events"`
	// Executable are the programs the generation policy let run.
	Executable []string `json:"executable,omitempty"`
	// ToolCalls are an openai generator's tool calls, or the programs a
	// traced cmd: generator ran (successful execs after its own). Turns,
	// Tokens, StopReason and Model describe an openai generator (Model with
	// its API key removed).
	ToolCalls  int             `json:"tool_calls"`
	Turns      int             `json:"turns"`
	Tokens     *Tokens         `json:"tokens,omitempty"`
	StopReason string          `json:"stop_reason,omitempty"`
	Model      json.RawMessage `json:"model,omitempty"`
	// Error says why the generation could not be carried out at all
	// (image build, rootfs); the policy is then invalid too.
	Error string `json:"error,omitempty"`
}

// write saves the record and the raw answer in dir.
func (r *Record) write(dir string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, RecordFile), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write generation record: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, PolicyFile), []byte(r.PolicyRaw), 0o644); err != nil {
		return fmt.Errorf("write generated policy: %w", err)
	}
	return nil
}

// ReadRecord reads a generation record.
func ReadRecord(data []byte) (*Record, error) {
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("generation record: %w", err)
	}
	return &r, nil
}

// recordSpec stands for the task's spec when a record's policy is read
// back: the policy was checked against the task's spec when it was
// recorded, so its network list (if any) is accepted.
var recordSpec = &policy.Spec{Network: policy.NetworkSpec{Declared: true}}

// ParsedPolicy returns the record's policy (nil when invalid).
func (r *Record) ParsedPolicy() *policy.Policy {
	if !r.Valid || r.Policy == nil {
		return nil
	}
	pol, err := policy.ParsePolicyFor(r.Policy, r.Generator, recordSpec)
	if err != nil {
		return nil
	}
	return pol
}

// setPolicy records pol as the record's parsed (normalised) policy.
// OutFile is what `generate --out FILE` writes: a valid answer as the
// policy it parsed to, normalised JSON as every policy reader (policy
// check, score, exec --policy) parses it, whatever wrapping the answer
// had (a fenced block, chatter); an invalid one as given, to look at.
// The raw answer stays in PolicyRaw either way.
func (r *Record) OutFile() []byte {
	if !r.Valid || len(r.Policy) == 0 {
		return []byte(r.PolicyRaw)
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, r.Policy, "", "  "); err != nil {
		return append([]byte(nil), r.Policy...)
	}
	buf.WriteByte('\n')
	return buf.Bytes()
}

func (r *Record) setPolicy(pol *policy.Policy) error {
	data, err := pol.MarshalJSON()
	if err != nil {
		return err
	}
	r.Valid, r.Policy = true, data
	return nil
}
