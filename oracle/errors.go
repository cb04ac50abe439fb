package oracle

import (
	"errors"
	"fmt"
	"strings"

	"github.com/authbench/authbench/policy"
)

// BrokenTaskError: the oracle did not pass its own task unconstrained,
// so no spec can be learnt from it: the task is broken.
type BrokenTaskError struct {
	Task     string `json:"task"`
	RunID    string `json:"run_id"`
	ExitCode int    `json:"exit_code"`
	// Reason is what went wrong (V_u failed, the run could not start).
	Reason string `json:"reason"`
	// VerifierOutput is V_u's output; AgentStderr the oracle's stderr
	// (each its last lines).
	VerifierOutput string `json:"verifier_output"`
	AgentStderr    string `json:"agent_stderr"`
}

func (e *BrokenTaskError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "task %s is broken: its oracle fails unconstrained (run %s, oracle exit %d): %s", e.Task, e.RunID, e.ExitCode, e.Reason)
	if e.VerifierOutput != "" {
		fmt.Fprintf(&b, "\n--- utility verifier output ---\n%s", e.VerifierOutput)
	}
	if e.AgentStderr != "" {
		fmt.Fprintf(&b, "\n--- oracle stderr ---\n%s", e.AgentStderr)
	}
	return b.String()
}

// TimeoutError: the oracle did not exit within the task's agent timeout.
type TimeoutError struct {
	Task     string  `json:"task"`
	RunID    string  `json:"run_id"`
	TimeoutS float64 `json:"timeout_s"`
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("task %s: the oracle did not exit within the task's agent timeout (%gs, task.toml [agent] timeout_sec) in run %s; no spec is recorded from a killed run",
		e.Task, e.TimeoutS, e.RunID)
}

// IncompleteTraceError: a recording run's trace is not complete (events
// lost, the log unfinished, or the run untraced): a spec learnt from it
// could miss what the lost events showed, so none is written.
type IncompleteTraceError struct {
	Task   string `json:"task"`
	RunID  string `json:"run_id"`
	Lost   uint64 `json:"lost_events"`
	Reason string `json:"reason"`
}

func (e *IncompleteTraceError) Error() string {
	return fmt.Sprintf("task %s: run %s has an incomplete trace (%s); refusing to record a spec from it", e.Task, e.RunID, e.Reason)
}

// Overlap is an access or required entry that a sensitive pattern covers.
type Overlap struct {
	Axis string `json:"axis"`
	// Path is the oracle's access, or the required entry.
	Path string `json:"path"`
	// Sensitive is the sensitive_permissions pattern.
	Sensitive string `json:"sensitive"`
}

// SensitiveOverlapError: the spec's sensitive_permissions cover what the
// oracle itself needs, so the task cannot be solved without the
// exposure it measures: the spec is refused.
type SensitiveOverlapError struct {
	Task     string    `json:"task"`
	Overlaps []Overlap `json:"overlaps"`
	// Where says what overlapped: "oracle accesses" or "required_permissions".
	Where string `json:"where"`
}

func (e *SensitiveOverlapError) Error() string {
	parts := make([]string, len(e.Overlaps))
	for i, o := range e.Overlaps {
		parts[i] = fmt.Sprintf("%s %s (sensitive %q)", o.Axis, o.Path, o.Sensitive)
	}
	return fmt.Sprintf("task %s: the spec's sensitive_permissions overlap the %s: %s; the oracle cannot do its task without touching what the spec marks sensitive: fix sensitive_permissions or the oracle",
		e.Task, e.Where, strings.Join(parts, "; "))
}

// MissingRootsError: scored roots that do not exist in the task's image
// (and that the oracle did not create).
type MissingRootsError struct {
	Task  string   `json:"task"`
	Roots []string `json:"roots"` // "axis /path"
}

func (e *MissingRootsError) Error() string {
	return fmt.Sprintf("task %s: scored_roots not in the task's image: %s", e.Task, strings.Join(e.Roots, ", "))
}

// IsRefusal reports whether err is the recorder refusing a task (its
// oracle broken, timed out, not deterministic, its trace incomplete, its
// spec contradictory or not made sufficient, a sensitive file in the
// way) rather than a failure to carry out runs.
func IsRefusal(err error) bool {
	var (
		bt *BrokenTaskError
		te *TimeoutError
		it *IncompleteTraceError
		so *SensitiveOverlapError
		sg *SensitiveGrantError
		mr *MissingRootsError
		ie *InsufficientError
		nd *NondeterministicError
		ve *policy.ValidationError
	)
	return errors.As(err, &bt) || errors.As(err, &te) || errors.As(err, &it) || errors.As(err, &so) || errors.As(err, &sg) ||
		errors.As(err, &mr) || errors.As(err, &ie) || errors.As(err, &nd) || errors.As(err, &ve)
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("[... %d lines before]", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
