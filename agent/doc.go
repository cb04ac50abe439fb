// Package agent runs model-driven agents: an OpenAI-compatible
// chat-completions client (non-streaming and streaming, retries with
// backoff, answers decoded bounded as they are read) and the tool loop
// shared by permission generation and the execution agent, whose history
// and trajectory are charged before they grow (StopLimits). Every loop
// records its transcript as an ATIF v1.4 trajectory. MemberPolicy is what
// a daemon's members may use (endpoints, limits). The API key is a
// Secret: it reaches the model endpoint and nothing else (logs,
// trajectories and stored configs print "[redacted]").
package agent
