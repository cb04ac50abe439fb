package runapi

import "time"

// PermissionRequest is one run-time permission request of an agent and
// its answer (TaskResult.PermissionRequests; docs/security.md,
// "Permission requests").
type PermissionRequest struct {
	// Access, Path and Reason are the request as the agent sent it
	// (Reason cut to 1 KiB, Path to 4 KiB).
	Access string `json:"access"`
	Path   string `json:"path"`
	Reason string `json:"reason"`
	// Decision is one of the Request* values; Decider the decider that
	// answered ("" for a request refused before one was asked); Why its
	// reason, which the agent read.
	Decision string `json:"decision"`
	Decider  string `json:"decider,omitempty"`
	Why      string `json:"why,omitempty"`
	// At is when the request was made; DecideMS how long its answer took.
	At       time.Time `json:"at"`
	DecideMS float64   `json:"decide_ms"`
	// Required: the task's required (or implicit) entries cover the
	// request, whatever the decider said (request precision). Sensitive:
	// the request, as compiled, reaches a sensitive file.
	Required  bool `json:"required"`
	Sensitive bool `json:"sensitive"`
	// Rules are the plan rules a grant added ("path rights").
	Rules []string `json:"rules,omitempty"`
	// Used: after the grant the agent's trace holds a successful access
	// of the path on its axis.
	Used bool `json:"used"`
}

// Decisions of a PermissionRequest.
const (
	RequestGranted = "granted"
	RequestRefused = "refused"
	// RequestInvalid: malformed (unknown access, a relative path, a
	// glob, no reason): nothing was decided.
	RequestInvalid = "invalid"
	// RequestOverLimit: the run's requests were used up.
	RequestOverLimit = "over_limit"
	// RequestFailed: granted, but the grant could not be applied (a
	// symlink on its path, a hard-linked file): nothing was granted.
	RequestFailed = "failed"
)
