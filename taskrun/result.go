package taskrun

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/policy"
)

// ResultFile is the name of the result in a run's directory.
const ResultFile = "result.json"

// Result is the outcome of one task run (result.json).
type Result struct {
	Task         string `json:"task"`
	Dataset      string `json:"dataset"`
	PolicySource string `json:"policy_source"`
	Agent        string `json:"agent"`
	// Utility is V_u's verdict; Attack is V_a's (null for standard tasks).
	Utility bool  `json:"utility"`
	Attack  *bool `json:"attack"`
	// VerifierError is set when a verifier could not give a verdict (it
	// crashed, timed out or wrote no reward): distinct from false.
	VerifierError string `json:"verifier_error,omitempty"`
	// ExitCode is the agent's exit status (128+n when killed by signal n).
	ExitCode  int     `json:"exit_code"`
	TimedOut  bool    `json:"timed_out"`
	DurationS float64 `json:"duration_s"`
	// SetupMS is the time from the rootfs being ready to the agent's exec.
	SetupMS float64 `json:"setup_ms"`
	// Denials are traced operations the plan refused; TracedSensitive the
	// successful accesses matching sensitive_permissions.
	Denials         []audit.Denial    `json:"denials"`
	TracedSensitive []SensitiveAccess `json:"traced_sensitive_access"`
	Traced          bool              `json:"traced"`
	Events          uint64            `json:"events"`
	LostEvents      uint64            `json:"lost_events"`
	// LandlockABI is the kernel's; UnenforcedRights what it cannot
	// enforce of the plan.
	LandlockABI         int               `json:"landlock_abi"`
	UnenforcedRights    []string          `json:"unenforced_rights"`
	PlanWiderThanPolicy []policy.Widening `json:"plan_wider_than_policy"`
	// Error says why the run could not be carried out (image build,
	// rootfs, the agent could not start); the verdicts are then false.
	Error string `json:"error,omitempty"`
	// AgentStdoutDroppedBytes and AgentStderrDroppedBytes count the
	// agent's output not stored (Options.MaxOutputBytes); LostEvents
	// includes the events not stored beyond it.
	AgentStdoutDroppedBytes int64 `json:"agent_stdout_dropped_bytes,omitempty"`
	AgentStderrDroppedBytes int64 `json:"agent_stderr_dropped_bytes,omitempty"`
}

// SensitiveAccess is a successful traced access that matches a
// sensitive_permissions pattern on its axis.
type SensitiveAccess struct {
	Op      string `json:"op"`
	Axis    string `json:"axis"`
	Path    string `json:"path"`
	Pattern string `json:"pattern"`
}

// write saves the result as dir/result.json.
func (r *Result) write(dir string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, ResultFile), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write result: %w", err)
	}
	return nil
}

// sensitiveMatcher finds sensitive accesses in events.
type sensitiveMatcher struct {
	patterns *policy.Permissions
	seen     map[SensitiveAccess]bool
	found    []SensitiveAccess
}

func newSensitiveMatcher(spec *policy.Spec) *sensitiveMatcher {
	return &sensitiveMatcher{patterns: spec.Sensitive, seen: map[SensitiveAccess]bool{}}
}

// observe records a successful operation on an axis whose path matches a
// sensitive pattern of that axis.
func (m *sensitiveMatcher) observe(op, axis, path string, ok bool) {
	if m.patterns == nil || !ok || axis == "" {
		return
	}
	a, err := policy.ParseAxis(axis)
	if err != nil {
		return
	}
	for _, p := range m.patterns.Get(a) {
		if p.Match(path) {
			sa := SensitiveAccess{Op: op, Axis: axis, Path: path, Pattern: p.String()}
			if !m.seen[sa] {
				m.seen[sa] = true
				m.found = append(m.found, sa)
			}
			return
		}
	}
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
