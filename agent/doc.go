// Package agent runs model-driven agents: an OpenAI-compatible
// chat-completions client (non-streaming and streaming, retries with
// backoff, bounded responses) and the tool loop shared by permission
// generation and the execution agent. Every loop records its transcript as
// an ATIF v1.4 trajectory. The API key is a Secret: it reaches the model
// endpoint and nothing else (logs, trajectories and stored configs print
// "[redacted]").
package agent
