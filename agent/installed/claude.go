package installed

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/authbench/authbench/agent"
)

// claudeCode is Claude Code (npm @anthropic-ai/claude-code) in print
// mode: one run on the instruction (-p) with every tool call approved
// (--dangerously-skip-permissions: authbench's confinement is the
// sandbox), started in the task's working directory, its session
// recorded under ClaudeSessionID. Its npm package carries no program:
// its install script copies the compiled binary of one of its optional
// dependencies (@anthropic-ai/claude-code-linux-x64, …, built against
// glibc) into place, and since no package script runs when a layer is
// made, that binary is run directly (releases before 2.1.113 are a
// Node.js script instead: claudeForVersion).
var claudeCode = Harness{
	Name: "claude-code", Package: "@anthropic-ai/claude-code", Version: "2.1.332",
	Entry: "../claude-code-linux-$ARCH/claude", Native: true, API: APIMessages,
	Sandbox: "not used: its Bash sandbox (bubblewrap) is opt-in and not turned on; --dangerously-skip-permissions approves every tool call (IS_SANDBOX=1 lets it do so as root), authbench's confinement deciding",
	// The key is the placeholder (the proxy sends the real one as
	// x-api-key); its update checks, telemetry, error reports and other
	// calls beside the model's are off.
	OwnEnv: []string{"ANTHROPIC_API_KEY=" + PlaceholderKey, "IS_SANDBOX=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1"},
	Config: claudeFiles, Args: claudeArgs, Events: claudeEvents, Convert: claudeTrajectory, ForVersion: claudeForVersion,
}

func init() { register(claudeCode) }

// claudeForVersion: releases before 2.1.113 are a Node.js script
// (cli.js) with no compiled binary.
func claudeForVersion(h Harness) Harness {
	if !versionAtLeast(h.Version, 2, 1, 113) {
		h.Entry, h.Native = "cli.js", false
	}
	return h
}

// versionAtLeast reports whether version (MAJOR.MINOR.PATCH[-…]) is at
// least major.minor.patch; a version that does not parse is not.
func versionAtLeast(version string, major, minor, patch int) bool {
	var v [3]int
	if _, err := fmt.Sscanf(version, "%d.%d.%d", &v[0], &v[1], &v[2]); err != nil {
		return false
	}
	return slices.Compare(v[:], []int{major, minor, patch}) >= 0
}

// claudeDir is Claude Code's directory under its HOME.
const claudeDir = Home + "/.claude"

// ClaudeSessionID is the session a Claude Code run records its
// transcript under (it takes a UUID).
const ClaudeSessionID = "5c1a0de0-7a11-4b3e-8c6d-61757468626e"

// anthropicBaseURL is the endpoint's base URL as ANTHROPIC_BASE_URL:
// the Anthropic client appends /v1/messages, so a trailing /v1 (the base
// URL's form for the OpenAI APIs) is dropped.
func anthropicBaseURL(e Endpoint) string {
	return strings.TrimSuffix(strings.TrimRight(e.BaseURL, "/"), "/v1")
}

// claudeFiles: its user settings — the run's endpoint and model (every
// model alias it would pick for a side task, as haiku for a subagent,
// mapped to the run's model) in the environment it applies at start,
// the output bound, and permission prompts bypassed.
func claudeFiles(r Run) ([]File, error) {
	env := map[string]string{"ANTHROPIC_BASE_URL": anthropicBaseURL(r.Endpoint), "CLAUDE_CODE_MAX_OUTPUT_TOKENS": strconv.Itoa(r.maxTokens())}
	for _, k := range []string{"ANTHROPIC_MODEL", "ANTHROPIC_DEFAULT_HAIKU_MODEL", "ANTHROPIC_DEFAULT_SONNET_MODEL", "ANTHROPIC_DEFAULT_OPUS_MODEL", "CLAUDE_CODE_SUBAGENT_MODEL"} {
		env[k] = r.Model
	}
	return jsonFile(path.Join(claudeDir, "settings.json"), map[string]any{
		"env":         env,
		"permissions": map[string]any{"defaultMode": "bypassPermissions"},
	})
}

// claudeArgs: print mode, its events as JSON lines on stdout (which
// needs --verbose), the run's model and session.
func claudeArgs(r Run, instruction string) []string {
	return []string{"-p", "--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions",
		"--model", r.Model, "--session-id", ClaudeSessionID, instruction}
}

// claudeEvent is one line of a Claude Code session file.
type claudeEvent struct {
	Type      string `json:"type"`
	SessionID string `json:"sessionId"`
	Timestamp string `json:"timestamp"`
	Message   *struct {
		ID      string          `json:"id"`
		Role    string          `json:"role"`
		Model   string          `json:"model"`
		Content json.RawMessage `json:"content"`
		Usage   *struct {
			Input         int64 `json:"input_tokens"`
			Output        int64 `json:"output_tokens"`
			CacheRead     int64 `json:"cache_read_input_tokens"`
			CacheCreation int64 `json:"cache_creation_input_tokens"`
		} `json:"usage"`
	} `json:"message"`
}

// claudeBlock is one content block of a Messages message.
type claudeBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// claudeBlocks decodes content: a string (one text block) or blocks.
func claudeBlocks(raw json.RawMessage) []claudeBlock {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []claudeBlock{{Type: "text", Text: s}}
	}
	var bs []claudeBlock
	_ = json.Unmarshal(raw, &bs)
	return bs
}

// claudeText is a tool result's content: a string or text blocks.
func claudeText(raw json.RawMessage) string {
	var text []string
	for _, b := range claudeBlocks(raw) {
		if b.Type == "text" {
			text = append(text, b.Text)
		}
	}
	return strings.Join(text, "\n")
}

// claudeTrajectory converts a Claude Code session: each user line's text
// a user step and its tool_result blocks observation results of the
// agent step that called them; each assistant message an agent step
// (text, thinking as reasoning_content, tool_use calls, token usage:
// prompt tokens are input, cache-creation and cache-read tokens, cached
// the cache reads). Claude Code writes a streamed message's blocks as
// consecutive lines of the same message id, which make one step, its
// usage counted once. Its bookkeeping lines (queue operations,
// attachments, costs, request shapes) carry nothing of the conversation
// and are left out; lines that are not JSON, user and assistant lines
// without a message and results for no call are counted in
// extra.skipped_events. The lines of its sub-agents (isSidechain, with
// an agentId: their own files, read after the session's) are converted
// the same way into steps appended after the session's, per sub-agent,
// each step's extra naming the sub-agent (subagent_id) and the Agent
// call that started it (parent_tool_call_id): their tokens count in the
// trajectory's. Pure.
func claudeTrajectory(h Harness, model string, events [][]byte) *agent.Trajectory {
	t := newTrajectory(h, model)
	c := &claudeConverter{t: t, callStep: map[string]int{}, open: -1}
	subs := &claudeSubagents{lines: map[string][][]byte{}, parent: map[string]string{}}
	for _, line := range events {
		if !subs.take(line) {
			c.line(line)
		}
	}
	subs.append(c)
	return finishTrajectory(t, c.skipped, c.truncated)
}

// line converts one line of a session.
func (c *claudeConverter) line(line []byte) {
	var ev claudeEvent
	if err := json.Unmarshal(line, &ev); err != nil {
		c.skipped++
		return
	}
	if c.t.SessionID == "" {
		c.t.SessionID = ev.SessionID
	}
	if ev.Type != "user" && ev.Type != "assistant" {
		return
	}
	if ev.Message == nil {
		c.skipped++
		return
	}
	if ev.Type == "user" {
		c.user(ev)
	} else {
		c.assistant(ev)
	}
}

// claudeConverter is the state of one conversion: the step of each tool
// call, the agent step its message id may still extend (open, -1: none)
// and that id.
type claudeConverter struct {
	t         *agent.Trajectory
	callStep  map[string]int
	open      int
	openID    string
	skipped   int
	truncated bool
}

func (c *claudeConverter) user(ev claudeEvent) {
	c.open = -1
	var text []string
	for _, b := range claudeBlocks(ev.Message.Content) {
		switch b.Type {
		case "text":
			text = append(text, b.Text)
		case "tool_result":
			i, ok := c.callStep[b.ToolUseID]
			if !ok {
				c.skipped++
				continue
			}
			content := claudeText(b.Content)
			if b.IsError {
				content = "error: " + content
			}
			observe(&c.t.Steps[i], b.ToolUseID, clip(content, &c.truncated))
		}
	}
	if len(text) > 0 {
		c.t.Steps = append(c.t.Steps, agent.Step{Timestamp: ev.Timestamp, Source: agent.SourceUser, Message: clip(strings.Join(text, "\n"), &c.truncated)})
	}
}

func (c *claudeConverter) assistant(ev claudeEvent) {
	m := ev.Message
	if c.open < 0 || m.ID == "" || m.ID != c.openID {
		c.t.Steps = append(c.t.Steps, agent.Step{Timestamp: ev.Timestamp, Source: agent.SourceAgent, ModelName: m.Model})
		c.open, c.openID = len(c.t.Steps)-1, m.ID
		if u := m.Usage; u != nil {
			c.t.Steps[c.open].Metrics = &agent.Metrics{PromptTokens: u.Input + u.CacheCreation + u.CacheRead, CompletionTokens: u.Output, CachedTokens: u.CacheRead}
		}
	}
	s := &c.t.Steps[c.open]
	join := func(old, add string) string {
		if old == "" {
			return clip(add, &c.truncated)
		}
		return clip(old+"\n"+add, &c.truncated)
	}
	for _, b := range claudeBlocks(m.Content) {
		switch b.Type {
		case "text":
			s.Message = join(s.Message, b.Text)
		case "thinking":
			s.ReasoningContent = join(s.ReasoningContent, b.Thinking)
		case "tool_use":
			s.ToolCalls = append(s.ToolCalls, agent.ToolCall{ToolCallID: b.ID, FunctionName: b.Name, Arguments: objectOrEmpty(b.Input)})
			c.callStep[b.ID] = c.open
		}
	}
}
