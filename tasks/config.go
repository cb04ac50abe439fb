package tasks

import (
	"slices"

	"github.com/authbench/authbench/capability"
)

// Dataset is the AuthBench evaluation set a task belongs to
// (metadata.authbench_eval_dataset).
type Dataset string

// The two evaluation sets.
const (
	Standard  Dataset = "standard"
	Sensitive Dataset = "sensitive"
)

// Sensitive modes (metadata.authbench_sensitive_mode), meaningful for
// sensitive tasks only.
const (
	// ModeMixed scores utility and safety; the default.
	ModeMixed = "mixed"
	// ModeSafetyOnly scores safety only.
	ModeSafetyOnly = "safety_only"
)

// Defaults applied when task.toml leaves a value out (Harbor's).
const (
	DefaultAgentTimeoutSec    = 600.0
	DefaultVerifierTimeoutSec = 600.0
	DefaultBuildTimeoutSec    = 600.0
)

// Config is the content of task.toml.
type Config struct {
	// Version is the Harbor task schema version ("version" or
	// "schema_version"), "" when absent.
	Version     string      `json:"version,omitempty"`
	Metadata    Metadata    `json:"metadata"`
	Agent       Agent       `json:"agent"`
	Verifier    Verifier    `json:"verifier"`
	Environment Environment `json:"environment"`
	// Solution holds [solution] env: variables for the oracle.
	Solution Solution `json:"solution"`
}

// Metadata is [metadata]: free-form in Harbor; authbench reads the keys
// below and keeps the rest in Extra.
type Metadata struct {
	Category    string   `json:"category,omitempty"`
	Difficulty  string   `json:"difficulty,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	AuthorName  string   `json:"author_name,omitempty"`
	AuthorEmail string   `json:"author_email,omitempty"`
	// Dataset is authbench_eval_dataset; Standard when absent.
	Dataset Dataset `json:"authbench_eval_dataset"`
	// SensitiveMode is authbench_sensitive_mode: "" for standard tasks,
	// ModeMixed (default) or ModeSafetyOnly for sensitive ones.
	SensitiveMode string `json:"authbench_sensitive_mode,omitempty"`
	// Extra holds every other metadata key as decoded from TOML.
	Extra map[string]any `json:"extra,omitempty"`
}

// Agent is [agent].
type Agent struct {
	TimeoutSec float64 `json:"timeout_sec"`
	// User runs the agent ("" = the runtime's choice).
	User string `json:"user,omitempty"`
	// Network is the agent phase's network_mode and allowed_hosts.
	Network Network `json:"network,omitzero"`
}

// Network is a phase's network policy as task.toml writes it (Harbor's
// keys): network_mode ("" when unset: the phase inherits [environment]'s)
// and, for "allowlist", allowed_hosts (entries as netpolicy.ParseEntry
// reads them, checked when the task is loaded).
type Network struct {
	Mode         string   `json:"network_mode,omitempty"`
	AllowedHosts []string `json:"allowed_hosts,omitempty"`
}

// Verifier is [verifier].
type Verifier struct {
	TimeoutSec float64           `json:"timeout_sec"`
	Env        map[string]string `json:"env,omitempty"`
	User       string            `json:"user,omitempty"`
	// Network is the verifier phase's network_mode and allowed_hosts.
	Network Network `json:"network,omitzero"`
}

// Environment is [environment]. Sizes are in MiB; 0 means unset.
type Environment struct {
	BuildTimeoutSec float64 `json:"build_timeout_sec"`
	DockerImage     string  `json:"docker_image,omitempty"`
	CPUs            float64 `json:"cpus,omitempty"`
	MemoryMB        int64   `json:"memory_mb,omitempty"`
	StorageMB       int64   `json:"storage_mb,omitempty"`
	GPUs            int64   `json:"gpus,omitempty"`
	// AllowInternet is true unless task.toml says false (Harbor's default).
	AllowInternet bool `json:"allow_internet"`
	// Network is [environment] network_mode (and allowed_hosts): the
	// baseline of every phase, over allow_internet.
	Network Network `json:"network,omitzero"`
	// CapAdd and CapDrop change the capabilities the task's agent and
	// verifiers run with, as Docker Compose's cap_add and cap_drop change
	// Docker's default set: canonical names ("CAP_CHOWN"), "ALL" in
	// CapDrop for every one. Harbor's task.toml has no such keys; a task
	// that needs no more than Docker gives leaves them out.
	CapAdd  []string `json:"cap_add,omitempty"`
	CapDrop []string `json:"cap_drop,omitempty"`
}

// CapDropAll in cap_drop drops every capability.
const CapDropAll = "ALL"

// Capabilities is the set the task's agent and verifiers run with as
// root: Docker's default set without CapDrop, with CapAdd, sorted. Pure.
func (e Environment) Capabilities() []string {
	var out []string
	if !slices.Contains(e.CapDrop, CapDropAll) {
		for _, c := range capability.Docker {
			if !slices.Contains(e.CapDrop, c) {
				out = append(out, c)
			}
		}
	}
	return capability.Sort(append(out, e.CapAdd...))
}

// Solution is [solution].
type Solution struct {
	Env map[string]string `json:"env,omitempty"`
}
