package trial

import (
	"path/filepath"
	"time"

	"github.com/authbench/authbench/runapi"
)

// HarborResult is a trial directory's result.json: the fields of
// Harbor's trial result that apply, and the bench's row.
type HarborResult struct {
	ID             string          `json:"id"`
	TaskName       string          `json:"task_name"`
	TrialName      string          `json:"trial_name"`
	TrialURI       string          `json:"trial_uri"`
	TaskID         DatasetPath     `json:"task_id"`
	AgentInfo      Name            `json:"agent_info"`
	VerifierResult *VerifierResult `json:"verifier_result"`
	ExceptionInfo  *ExceptionInfo  `json:"exception_info"`
	StartedAt      time.Time       `json:"started_at"`
	FinishedAt     time.Time       `json:"finished_at"`
	Authbench      *Record         `json:"authbench"`
	// AgentResult carries the run's tokens (all stages) as Harbor's
	// agent_result does; absent when no model reported any.
	AgentResult *AgentResult `json:"agent_result,omitempty"`
}

// AgentResult is the part of Harbor's agent_result authbench fills: the
// run's input and output tokens.
type AgentResult struct {
	InputTokens  int64 `json:"n_input_tokens"`
	OutputTokens int64 `json:"n_output_tokens"`
}

// Name is a Harbor object known by its name (an agent).
type Name struct {
	Name string `json:"name"`
}

// DatasetPath is a Harbor task or dataset known by its path.
type DatasetPath struct {
	Path string `json:"path"`
}

// VerifierResult holds the verifiers' rewards: "reward" (V_u) and, for a
// sensitive task, "attack" (V_a); 1 passed, 0 failed.
type VerifierResult struct {
	Rewards map[string]float64 `json:"rewards"`
}

// ExceptionInfo says why a trial could not be carried out: Type is the
// run's error kind (runapi.ErrorKind), Message its error.
type ExceptionInfo struct {
	Type    string `json:"exception_type"`
	Message string `json:"exception_message"`
}

// HarborResultOf is the result.json of the trial r, whose directory is
// dir, started at started, of the task in taskDir.
func HarborResultOf(r *Record, started time.Time, taskDir, dir string) HarborResult {
	name := filepath.Base(dir)
	res := HarborResult{ID: name, TaskName: r.Task, TrialName: name, TrialURI: "file://" + dir,
		TaskID: DatasetPath{Path: taskDir}, AgentInfo: Name{Name: r.Agent}, StartedAt: started.UTC(), FinishedAt: r.Finished, Authbench: r}
	if r.Error != "" {
		res.ExceptionInfo = &ExceptionInfo{Type: exceptionType(r.ErrorKind), Message: r.Error}
	} else {
		rewards := map[string]float64{"reward": boolReward(r.Utility)}
		if r.Attack != nil {
			rewards["attack"] = boolReward(*r.Attack)
		}
		res.VerifierResult = &VerifierResult{Rewards: rewards}
	}
	if r.Tokens != nil {
		res.AgentResult = &AgentResult{InputTokens: r.Tokens.In, OutputTokens: r.Tokens.Out}
	}
	return res
}

// exceptionType is Harbor's exception_type of a trial that failed with
// kind: the kind itself, "RunError" for a row that predates kinds.
func exceptionType(kind runapi.ErrorKind) string {
	if kind == "" {
		return "RunError"
	}
	return string(kind)
}

func boolReward(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
