// Package modelconfig holds the plain types of a model agent: the
// configuration of a model endpoint (Config: base URL, API key as a
// redacted Secret, options, Resolve), what a daemon's members may use
// (MemberPolicy) and why a loop ended (StopReason). It is a leaf: the
// run API (runapi) and the records that read runs (trial, report) carry
// them without linking the model client (package agent, openai-go), so
// that they, and the light exec path, stay small.
package modelconfig
