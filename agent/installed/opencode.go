package installed

import (
	"encoding/json"
	"path"
	"strings"
	"time"

	"github.com/authbench/authbench/agent"
	"github.com/authbench/authbench/internal/safefile"
)

// opencode is opencode (npm opencode-ai) in `opencode run` mode: one
// run on the instruction, started in the task's working directory.
// Its npm package carries no program: it names one compiled binary per
// platform as an optional dependency (opencode-linux-x64, …, built
// against glibc; npm installs the host's), which is run directly.
var opencode = Harness{
	Name: "opencode", Package: "opencode-ai", Version: "1.18.33", Entry: "../opencode-linux-$ARCH/bin/opencode", Native: true,
	API: APIChatCompletions,
	// Its runtime (Bun) aborts at start when /dev/urandom cannot be
	// read.
	Reads:   []string{"/dev/urandom"},
	Sandbox: "none: opencode has no sandbox of its own (its permission prompts are set to allow, authbench's confinement deciding); its tools run in authbench's confinement",
	// Its models catalogue (models.dev), self-update and language
	// server downloads are turned off: nothing but the model endpoint is
	// reached.
	OwnEnv: []string{"OPENCODE_CONFIG=" + opencodeConfig, "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1", "OPENCODE_DISABLE_DEFAULT_PLUGINS=1"},
	Config: opencodeFiles, Args: opencodeArgs, Events: opencodeEvents, Convert: opencodeTrajectory,
}

func init() { register(opencode) }

// opencodeConfig is its configuration file (OPENCODE_CONFIG).
const opencodeConfig = State + "/opencode.json"

// opencodeDB is its database (sessions, messages, parts) under its
// XDG data directory, relative to /.
var opencodeDB = path.Join(strings.TrimPrefix(Home, "/"), ".local", "share", "opencode", "opencode.db")

// opencodeFiles: the run's endpoint as an OpenAI-compatible provider
// with the placeholder key; sharing, snapshots (git repositories of the
// work tree) and self-update off; every permission allowed.
func opencodeFiles(r Run) ([]File, error) {
	files, err := jsonFile(opencodeConfig, map[string]any{
		"autoupdate": false, "share": "disabled", "snapshot": false,
		"model": ProviderID + "/" + r.Model, "small_model": ProviderID + "/" + r.Model,
		"permission": map[string]any{"edit": "allow", "bash": "allow", "webfetch": "allow", "external_directory": "allow"},
		"provider": map[string]any{ProviderID: map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": ProviderID,
			"options": map[string]any{"baseURL": strings.TrimRight(r.BaseURL, "/"), "apiKey": PlaceholderKey},
			"models":  map[string]any{r.Model: map[string]any{"name": r.Model, "limit": map[string]any{"context": 128000, "output": r.maxTokens()}}},
		}},
	})
	if err != nil {
		return nil, err
	}
	return append(files, opencodePluginStub()...), nil
}

// opencodeConfigDir is its configuration directory (XDG), which it
// makes.
const opencodeConfigDir = Home + "/.config/opencode"

// opencodePluginStub: at start opencode installs its plugin package
// (@opencode-ai/plugin, for plugins the run loads none of: --pure) from
// the npm registry into its configuration directory unless that
// directory's node_modules exists and its package-lock lists every
// dependency its package.json names (by name: versions are not
// compared). These say it is there.
func opencodePluginStub() []File {
	deps := map[string]any{"dependencies": map[string]string{"@opencode-ai/plugin": "*"}}
	pkg, _ := json.Marshal(deps)
	lock, _ := json.Marshal(map[string]any{"lockfileVersion": 3, "packages": map[string]any{"": deps}})
	return []File{
		{Path: opencodeConfigDir + "/package.json", Data: pkg},
		{Path: opencodeConfigDir + "/package-lock.json", Data: lock},
		{Path: opencodeConfigDir + "/node_modules/.authbench", Data: nil},
	}
}

// opencodeArgs: --pure (no external plugins, which it would fetch from
// the npm registry), a title given (else it asks the model for one, a
// second conversation), JSON events on stdout.
func opencodeArgs(r Run, instruction string) []string {
	return []string{"run", "--pure", "--title", "authbench", "--format", "json", "--model", ProviderID + "/" + r.Model, instruction}
}

// opencodeEvents reads its messages, each with its parts, in order: one
// event a message ({"id", "session_id", "message", "parts"}).
func opencodeEvents(root *safefile.Dir) ([][]byte, string, error) {
	return sqliteEvents(root, opencodeDB, `SELECT json_object('id', m.id, 'session_id', m.session_id, 'message', json(m.data),
		'parts', json((SELECT json_group_array(json(p.data)) FROM (SELECT data FROM part WHERE message_id = m.id ORDER BY id) p)))
		FROM message m WHERE json_valid(m.data) ORDER BY m.time_created, m.id`)
}

// opencodeEvent is one message of opencode's with its parts.
type opencodeEvent struct {
	SessionID string `json:"session_id"`
	Message   struct {
		Role    string `json:"role"`
		ModelID string `json:"modelID"`
		Time    struct {
			Created int64 `json:"created"`
		} `json:"time"`
		Tokens *struct {
			Input  int64 `json:"input"`
			Output int64 `json:"output"`
			Cache  struct {
				Read int64 `json:"read"`
			} `json:"cache"`
		} `json:"tokens"`
	} `json:"message"`
	Parts []opencodePart `json:"parts"`
}

// opencodePart is one part of a message: text, reasoning, or a tool
// call with its state (input, output or error).
type opencodePart struct {
	Type   string `json:"type"`
	Text   string `json:"text"`
	Tool   string `json:"tool"`
	CallID string `json:"callID"`
	State  struct {
		Status string          `json:"status"`
		Input  json.RawMessage `json:"input"`
		Output string          `json:"output"`
		Error  string          `json:"error"`
	} `json:"state"`
}

// opencodeTrajectory converts opencode's messages: a user message a user
// step, an assistant message an agent step (text, reasoning, tool calls
// and, from the same parts, their results, token usage). Events that
// are not JSON and messages of other roles are counted in
// extra.skipped_events. Pure.
func opencodeTrajectory(h Harness, model string, events [][]byte) *agent.Trajectory {
	t := newTrajectory(h, model)
	skipped, truncated := 0, false
	for _, line := range events {
		var ev opencodeEvent
		if err := json.Unmarshal(line, &ev); err != nil {
			skipped++
			continue
		}
		if t.SessionID == "" {
			t.SessionID = ev.SessionID
		}
		var text, reasoning []string
		s := agent.Step{Timestamp: millisRFC3339(ev.Message.Time.Created)}
		for _, p := range ev.Parts {
			switch p.Type {
			case "text":
				text = append(text, p.Text)
			case "reasoning":
				reasoning = append(reasoning, p.Text)
			case "tool":
				s.ToolCalls = append(s.ToolCalls, agent.ToolCall{ToolCallID: p.CallID, FunctionName: p.Tool, Arguments: objectOrEmpty(p.State.Input)})
				content := p.State.Output
				if p.State.Status == "error" {
					content = "error: " + p.State.Error
				}
				observe(&s, p.CallID, clip(content, &truncated))
			}
		}
		s.Message = clip(strings.Join(text, "\n"), &truncated)
		switch ev.Message.Role {
		case "user":
			s.Source, s.ToolCalls, s.Observation = agent.SourceUser, nil, nil
		case "assistant":
			s.Source, s.ModelName = agent.SourceAgent, ev.Message.ModelID
			s.ReasoningContent = clip(strings.Join(reasoning, "\n"), &truncated)
			if u := ev.Message.Tokens; u != nil {
				s.Metrics = &agent.Metrics{PromptTokens: u.Input, CompletionTokens: u.Output, CachedTokens: u.Cache.Read}
			}
		default:
			skipped++
			continue
		}
		t.Steps = append(t.Steps, s)
	}
	return finishTrajectory(t, skipped, truncated)
}

// millisRFC3339 formats milliseconds since the epoch (0: none).
func millisRFC3339(ms int64) string {
	if ms <= 0 {
		return ""
	}
	return time.UnixMilli(ms).UTC().Format(time.RFC3339Nano)
}
