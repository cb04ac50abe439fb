package installed

import (
	"encoding/json"
	"path"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/authbench/authbench/agent"
	"github.com/authbench/authbench/internal/safefile"
)

// codex is the Codex CLI (npm @openai/codex) non-interactive: `codex
// exec` on the instruction, every command run without asking and
// without its own sandbox, started in the task's working directory. Its
// npm package is a Node.js launcher that replaces itself (execve) with
// the compiled binary of one of its optional dependencies
// (@openai/codex-linux-x64, …, built against musl, static); it speaks
// OpenAI's Responses API. Its apply_patch (its tool, or an apply_patch
// heredoc run through exec_command) is applied in its own process; the
// helper aliases it makes at start (symbolic links to its binary under
// $CODEX_HOME/tmp/arg0-linux) run, by their paths, the binary they
// resolve to, which the layer's widening lets the agent execute: the
// plan grants no execute under the harness's state.
var codex = Harness{
	Name: "codex", Package: "@openai/codex", Version: "0.171.0", Entry: "bin/codex.js", API: APIResponses,
	Sandbox: "off (--dangerously-bypass-approvals-and-sandbox): its Linux sandbox (bubblewrap, Landlock, seccomp) would nest inside authbench's and its approval prompts have nobody to answer them; its commands run in authbench's confinement",
	OwnEnv:  []string{"CODEX_HOME=" + codexHome},
	Config:  codexFiles, Args: codexArgs, Events: codexEvents, Convert: codexTrajectory,
}

func init() { register(codex) }

// codexHome is its configuration and state directory (CODEX_HOME).
const codexHome = Home + "/.codex"

// codexFiles: its config.toml — the run's endpoint as its one model
// provider (Responses wire API, the key from OPENAI_API_KEY, the
// placeholder), approvals never asked, its sandbox off, update checks
// and feedback off, and what it reaches at start beside the model off:
// its analytics (ab.chatgpt.com) and its plugins (their catalogue, from
// github.com, api.github.com and chatgpt.com). Codex has no setting
// bounding its answers (it sends no max_output_tokens): the endpoint's
// max_tokens is not applied.
func codexFiles(r Run) ([]File, error) {
	data, err := toml.Marshal(map[string]any{
		"model": r.Model, "model_provider": ProviderID,
		"approval_policy": "never", "sandbox_mode": "danger-full-access",
		"check_for_update_on_startup": false,
		"analytics":                   map[string]any{"enabled": false},
		"feedback":                    map[string]any{"enabled": false},
		"features":                    map[string]any{"plugins": false},
		"model_providers": map[string]any{ProviderID: map[string]any{
			"name": ProviderID, "base_url": strings.TrimRight(r.BaseURL, "/"), "env_key": "OPENAI_API_KEY", "wire_api": "responses",
		}},
	})
	if err != nil {
		return nil, err
	}
	return []File{{Path: codexHome + "/config.toml", Data: data}}, nil
}

// codexArgs: events as JSON lines on stdout, no git repository needed
// (a task's working directory rarely is one).
func codexArgs(r Run, instruction string) []string {
	return []string{"exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "--model", r.Model, instruction}
}

// codexEvents reads its session's rollout file (sessions/YYYY/MM/DD,
// the newest by name: its names begin with the time).
func codexEvents(root *safefile.Dir) ([][]byte, string, error) {
	return sessionFileEvents(root, path.Join(strings.TrimPrefix(codexHome, "/"), "sessions", "*", "*", "*", "rollout-*.jsonl"), "codex")
}

// codexLine is one line of a Codex rollout file.
type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

// codexItem is a rollout payload: a Responses item (message, reasoning,
// function_call, custom_tool_call, local_shell_call and their outputs),
// the session's metadata, or a response's token usage.
type codexItem struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Role      string          `json:"role"`
	Content   []codexPart     `json:"content"`
	Summary   []codexPart     `json:"summary"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	Action    json.RawMessage `json:"action"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
	Usage     *struct {
		Input  int64 `json:"input_tokens"`
		Cached int64 `json:"cached_input_tokens"`
		Output int64 `json:"output_tokens"`
	} `json:"usage"`
}

// codexPart is a text part of an item's content or summary.
type codexPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// codexText joins the text of parts.
func codexText(ps []codexPart) string {
	var text []string
	for _, p := range ps {
		text = append(text, p.Text)
	}
	return strings.Join(text, "\n")
}

// codexOutput is a tool output: a string or content parts.
func codexOutput(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var ps []codexPart
	_ = json.Unmarshal(raw, &ps)
	return codexText(ps)
}

// codexTrajectory converts a Codex rollout: each user message a user
// step (its environment context too: Codex sends it as one), each
// developer or system message a system step, the assistant items of one
// response (messages, reasoning summaries, function, custom-tool and
// local-shell calls) an agent step closed by that response's
// token_usage_record, each call's output an observation result of the
// step that made it. Its event_msg lines repeat the items for a UI and
// are left out, as are its other bookkeeping lines; lines that are not
// JSON, items of other types and outputs for no call are counted in
// extra.skipped_events. Pure.
func codexTrajectory(h Harness, model string, events [][]byte) *agent.Trajectory {
	t := newTrajectory(h, model)
	c := &codexConverter{t: t, callStep: map[string]int{}, open: -1}
	for _, line := range events {
		var l codexLine
		var it codexItem
		if json.Unmarshal(line, &l) != nil || json.Unmarshal(l.Payload, &it) != nil {
			c.skipped++
			continue
		}
		switch l.Type {
		case "session_meta":
			if t.SessionID == "" {
				t.SessionID = it.ID
			}
		case "response_item":
			c.item(l.Timestamp, it)
		case "token_usage_record":
			if c.open >= 0 && it.Usage != nil {
				c.t.Steps[c.open].Metrics = &agent.Metrics{PromptTokens: it.Usage.Input, CompletionTokens: it.Usage.Output, CachedTokens: it.Usage.Cached}
			}
			c.open = -1
		}
	}
	return finishTrajectory(t, c.skipped, c.truncated)
}

// codexConverter is the state of one conversion: the step of each call
// and the agent step of the response being read (open, -1: none).
type codexConverter struct {
	t         *agent.Trajectory
	callStep  map[string]int
	open      int
	skipped   int
	truncated bool
}

// agentStep is the open agent step, made when there is none.
func (c *codexConverter) agentStep(ts string) *agent.Step {
	if c.open < 0 {
		c.t.Steps = append(c.t.Steps, agent.Step{Timestamp: ts, Source: agent.SourceAgent, ModelName: c.t.Agent.ModelName})
		c.open = len(c.t.Steps) - 1
	}
	return &c.t.Steps[c.open]
}

func (c *codexConverter) call(ts, id, name string, args json.RawMessage) {
	s := c.agentStep(ts)
	s.ToolCalls = append(s.ToolCalls, agent.ToolCall{ToolCallID: id, FunctionName: name, Arguments: objectOrEmpty(args)})
	c.callStep[id] = c.open
}

func (c *codexConverter) item(ts string, it codexItem) {
	join := func(old, add string) string {
		if old == "" {
			return clip(add, &c.truncated)
		}
		return clip(old+"\n"+add, &c.truncated)
	}
	switch it.Type {
	case "message":
		switch it.Role {
		case "assistant":
			s := c.agentStep(ts)
			s.Message = join(s.Message, codexText(it.Content))
		case "user", "developer", "system":
			c.open = -1
			src := agent.SourceUser
			if it.Role != "user" {
				src = agent.SourceSystem
			}
			c.t.Steps = append(c.t.Steps, agent.Step{Timestamp: ts, Source: src, Message: clip(codexText(it.Content), &c.truncated)})
		default:
			c.skipped++
		}
	case "reasoning":
		s := c.agentStep(ts)
		s.ReasoningContent = join(s.ReasoningContent, codexText(it.Summary))
	case "function_call":
		c.call(ts, it.CallID, it.Name, json.RawMessage(it.Arguments))
	case "custom_tool_call":
		input, _ := json.Marshal(map[string]string{"input": it.Input})
		c.call(ts, it.CallID, it.Name, input)
	case "local_shell_call":
		c.call(ts, it.CallID, "local_shell", it.Action)
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		i, ok := c.callStep[it.CallID]
		if !ok {
			c.skipped++
			return
		}
		observe(&c.t.Steps[i], it.CallID, clip(codexOutput(it.Output), &c.truncated))
	default:
		c.skipped++
	}
}
