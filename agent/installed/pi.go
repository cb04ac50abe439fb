package installed

import (
	"path"
	"strings"

	"github.com/authbench/authbench/internal/safefile"
)

// pi is pi (npm @earendil-works/pi-coding-agent) in print mode: one
// turn on the instruction, started in the task's working directory,
// which its tools resolve relative paths against.
var pi = Harness{
	Name: "pi", Package: "@earendil-works/pi-coding-agent", Version: "1.6.0", Entry: "dist/bundle/cli.js", API: APIChatCompletions,
	Sandbox: "none: pi has no sandbox of its own; its tools run in authbench's confinement",
	OwnEnv:  []string{"PI_CODING_AGENT_DIR=" + State},
	Config:  piFiles, Args: piArgs, Events: piEvents, Convert: sessionTrajectory,
}

func init() { register(pi) }

// SessionsDir is where pi keeps its session files.
const SessionsDir = State + "/sessions"

// piProvider is a custom openai-completions provider at e with the
// placeholder key, in the shape pi and OpenClaw (built on pi) read.
func piProvider(e Endpoint) map[string]any {
	return map[string]any{
		"baseUrl": strings.TrimRight(e.BaseURL, "/"), "apiKey": PlaceholderKey, "api": "openai-completions",
		"models": []any{map[string]any{
			"id": e.Model, "name": e.Model, "reasoning": false, "input": []string{"text"},
			"cost":          map[string]float64{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
			"contextWindow": 128000, "maxTokens": e.maxTokens(),
		}},
	}
}

func piFiles(r Run) ([]File, error) {
	return jsonFile(path.Join(State, "models.json"), map[string]any{"providers": map[string]any{ProviderID: piProvider(r.Endpoint)}})
}

func piArgs(r Run, instruction string) []string {
	return []string{"--print", "--provider", ProviderID, "--model", r.Model, "--session-dir", SessionsDir, instruction}
}

// piEvents reads pi's session file (sessionFileEvents).
func piEvents(root *safefile.Dir) ([][]byte, string, error) {
	return sessionFileEvents(root, path.Join(strings.TrimPrefix(SessionsDir, "/"), "*.jsonl"), "pi")
}
