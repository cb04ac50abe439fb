// Package agent runs model-driven agents: an OpenAI-compatible
// chat-completions client (non-streaming and streaming, retries with
// backoff, answers decoded bounded as they are read) and the tool loop
// shared by permission generation and the execution agent, whose history
// and trajectory are charged before they grow (StopLimits). Every loop
// records its transcript as an ATIF v1.4 trajectory. The endpoint's
// config, the members' policy (what a daemon's members may use) and the
// stop reasons are package agent/modelconfig's plain types; the API key
// is its Secret: it reaches the model endpoint and nothing else (logs,
// trajectories and stored configs print "[redacted]"). Real harnesses run
// in the task's container (`installed:NAME[:MODEL]`) are package
// agent/installed; the confined process a model's tool calls run as is
// package agent/toolbox.
package agent
