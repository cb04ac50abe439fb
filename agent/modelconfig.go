package agent

import "github.com/authbench/authbench/agent/modelconfig"

// The model configuration lives in the leaf package modelconfig (the run
// API carries it without linking this client); these names keep it
// where the agent's users look for it.
type (
	// Config is an OpenAI-compatible endpoint and the model's options
	// (modelconfig.Config).
	Config = modelconfig.Config
	// Secret is an API key that prints redacted (modelconfig.Secret).
	Secret = modelconfig.Secret
	// Duration is a time.Duration written as a string in JSON
	// (modelconfig.Duration).
	Duration = modelconfig.Duration
	// MemberPolicy is what a daemon's members may use in their model
	// configs (modelconfig.MemberPolicy).
	MemberPolicy = modelconfig.MemberPolicy
)

// Defaults and environment variables of a Config (see modelconfig).
const (
	DefaultBaseURL               = modelconfig.DefaultBaseURL
	DefaultMaxTurns              = modelconfig.DefaultMaxTurns
	DefaultCallTimeout           = modelconfig.DefaultCallTimeout
	DefaultMaxRetries            = modelconfig.DefaultMaxRetries
	DefaultMaxHistoryBytes       = modelconfig.DefaultMaxHistoryBytes
	DefaultMemberMaxTurns        = modelconfig.DefaultMemberMaxTurns
	DefaultMemberMaxHistoryBytes = modelconfig.DefaultMemberMaxHistoryBytes
	EnvBaseURL                   = modelconfig.EnvBaseURL
	EnvAPIKey                    = modelconfig.EnvAPIKey
	ModelPrefix                  = modelconfig.ModelPrefix
	InstalledPrefix              = modelconfig.InstalledPrefix
)

// ParseModelName parses "openai:MODEL" and "installed:NAME[@VERSION][:MODEL]" (see
// modelconfig.ParseModelName).
func ParseModelName(s string) (model string, ok bool, err error) {
	return modelconfig.ParseModelName(s)
}

// redacted is what a Secret prints instead of itself.
const redacted = modelconfig.Redacted
