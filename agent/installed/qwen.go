package installed

import (
	"encoding/json"
	"path"
	"strings"

	"github.com/authbench/authbench/agent"
	"github.com/authbench/authbench/internal/safefile"
)

// qwenCode is Qwen Code (npm @qwen-code/qwen-code) headless: one run on
// the instruction (its positional prompt) with every tool call
// approved (--yolo: authbench's confinement is the sandbox), started in
// the task's working directory.
var qwenCode = Harness{
	Name: "qwen-code", Package: "@qwen-code/qwen-code", Version: "0.24.4", Entry: "cli.js", API: APIChatCompletions,
	Sandbox: "not used: its sandboxes (Docker, Podman, bubblewrap, macOS Seatbelt) are opt-in and none is asked for; its tools run in authbench's confinement",
	OwnEnv:  []string{"QWEN_CODE_SUPPRESS_YOLO_WARNING=1", "QWEN_CODE_NO_RELAUNCH=1"},
	Config:  qwenFiles, Args: qwenArgs, Events: qwenEvents, Convert: qwenTrajectory,
}

func init() { register(qwenCode) }

// qwenDir is Qwen Code's directory under its HOME.
const qwenDir = Home + "/.qwen"

// QwenSessionID is the session a Qwen Code run records its chat under
// (it takes a UUID).
const QwenSessionID = "6a1f0b5e-3c2d-4e8f-9a7b-61757468626e"

// qwenFiles: its user settings — the run's endpoint as its only OpenAI
// provider (the key from OPENAI_API_KEY, the placeholder), telemetry,
// usage statistics and update checks off.
func qwenFiles(r Run) ([]File, error) {
	return jsonFile(path.Join(qwenDir, "settings.json"), map[string]any{
		"security": map[string]any{"auth": map[string]any{"selectedType": "openai"}},
		"model":    map[string]any{"name": r.Model},
		"modelProviders": map[string]any{"openai": []any{map[string]any{
			"id": r.Model, "name": r.Model, "baseUrl": strings.TrimRight(r.BaseURL, "/"), "envKey": "OPENAI_API_KEY",
			"generationConfig": map[string]any{"samplingParams": map[string]any{"max_tokens": r.maxTokens()}},
		}}},
		"telemetry": map[string]any{"enabled": false},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"general":   map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
	})
}

func qwenArgs(r Run, instruction string) []string {
	return []string{"--auth-type", "openai", "--model", r.Model, "--yolo", "--output-format", "json",
		"--session-id", QwenSessionID, instruction}
}

// qwenEvents reads its chat of the run: one file per project directory
// (named after the working directory) and session.
func qwenEvents(root *safefile.Dir) ([][]byte, string, error) {
	return sessionFileEvents(root, path.Join(strings.TrimPrefix(qwenDir, "/"), "projects", "*", "chats", QwenSessionID+".jsonl"), "qwen-code")
}

// qwenEvent is one line of a Qwen Code chat.
type qwenEvent struct {
	Type      string `json:"type"`
	SessionID string `json:"sessionId"`
	Timestamp string `json:"timestamp"`
	Model     string `json:"model"`
	Message   *struct {
		Parts []qwenPart `json:"parts"`
	} `json:"message"`
	Usage *struct {
		Prompt     int64 `json:"promptTokenCount"`
		Candidates int64 `json:"candidatesTokenCount"`
		Cached     int64 `json:"cachedContentTokenCount"`
	} `json:"usageMetadata"`
}

// qwenPart is a Gemini-style content part.
type qwenPart struct {
	Text         string `json:"text"`
	Thought      bool   `json:"thought"`
	FunctionCall *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID       string `json:"id"`
		Response struct {
			Output string `json:"output"`
			Error  string `json:"error"`
		} `json:"response"`
	} `json:"functionResponse"`
}

// qwenTrajectory converts a Qwen Code chat: each user event (its
// prompt) a user step, each assistant event an agent step (text,
// thought parts as reasoning_content, function calls, token usage),
// each tool_result's function responses observation results of the
// agent step that called them. Its system events (its own UI telemetry,
// kept locally) carry nothing of the conversation and are left out;
// lines that are not JSON, and events of other types, are counted in
// extra.skipped_events. Pure.
func qwenTrajectory(h Harness, model string, events [][]byte) *agent.Trajectory {
	t := newTrajectory(h, model)
	skipped, truncated := 0, false
	callStep := map[string]int{}
	for _, line := range events {
		var ev qwenEvent
		if err := json.Unmarshal(line, &ev); err != nil {
			skipped++
			continue
		}
		if t.SessionID == "" {
			t.SessionID = ev.SessionID
		}
		if ev.Type == "system" {
			continue
		}
		if ev.Message == nil {
			skipped++
			continue
		}
		switch ev.Type {
		case "user":
			var text []string
			for _, p := range ev.Message.Parts {
				text = append(text, p.Text)
			}
			t.Steps = append(t.Steps, agent.Step{Timestamp: ev.Timestamp, Source: agent.SourceUser, Message: clip(strings.Join(text, "\n"), &truncated)})
		case "assistant":
			s := agent.Step{Timestamp: ev.Timestamp, Source: agent.SourceAgent, ModelName: ev.Model}
			var text, thought []string
			for _, p := range ev.Message.Parts {
				switch {
				case p.FunctionCall != nil:
					s.ToolCalls = append(s.ToolCalls, agent.ToolCall{ToolCallID: p.FunctionCall.ID, FunctionName: p.FunctionCall.Name, Arguments: objectOrEmpty(p.FunctionCall.Args)})
					callStep[p.FunctionCall.ID] = len(t.Steps)
				case p.Thought:
					thought = append(thought, p.Text)
				default:
					text = append(text, p.Text)
				}
			}
			s.Message = clip(strings.Join(text, "\n"), &truncated)
			s.ReasoningContent = clip(strings.Join(thought, "\n"), &truncated)
			if u := ev.Usage; u != nil {
				s.Metrics = &agent.Metrics{PromptTokens: u.Prompt, CompletionTokens: u.Candidates, CachedTokens: u.Cached}
			}
			t.Steps = append(t.Steps, s)
		case "tool_result":
			for _, p := range ev.Message.Parts {
				r := p.FunctionResponse
				if r == nil {
					continue
				}
				i, ok := callStep[r.ID]
				if !ok {
					skipped++
					continue
				}
				content := r.Response.Output
				if r.Response.Error != "" {
					content = "error: " + r.Response.Error + "\n" + content
				}
				observe(&t.Steps[i], r.ID, clip(content, &truncated))
			}
		default:
			skipped++
		}
	}
	return finishTrajectory(t, skipped, truncated)
}
