package installed

import (
	"path"
	"strings"
)

// openclaw is OpenClaw (npm openclaw): `openclaw agent --local`, one
// turn on the instruction, its tools run by its embedded agent.
var openclaw = Harness{
	Name: "openclaw", Package: "openclaw", Version: "2026.9.6", Entry: "openclaw.mjs", API: APIChatCompletions,
	Complete: []string{"--version"}, Scratch: []string{"/tmp/**"},
	Sandbox: "off (agents.defaults.sandbox.mode \"off\"): its sandbox runs tools in Docker containers, which do not exist inside a task container; the tools run in authbench's confinement instead",
	// Its exec tool runs commands with $SHELL (else sh), and wraps each
	// child in /bin/sh to set its OOM score unless
	// OPENCLAW_CHILD_OOM_SCORE_ADJ is off: bash, the shell task specs
	// name (an oracle's solve.sh runs in it), does both.
	OwnEnv: []string{"OPENCLAW_STATE_DIR=" + State, "OPENCLAW_CONFIG_PATH=" + openclawConfig,
		"SHELL=/bin/bash", "OPENCLAW_CHILD_OOM_SCORE_ADJ=0"},
	Config: openclawFiles, Args: openclawArgs, Events: openclawEvents, Convert: sessionTrajectory,
}

// openclawConfig is OpenClaw's configuration file.
const openclawConfig = State + "/openclaw.json"

// openclawDB is its agent database (transcript_events), relative to /.
var openclawDBFile = path.Join(strings.TrimPrefix(State, "/"), "agents", "main", "agent", "openclaw-agent.sqlite")

// openclawFiles: the run's endpoint as a custom provider, its own
// sandbox off, and its workspace — the directory its tools start in
// and resolve relative paths against — the task's working directory
// with no bootstrap files seeded there (its default, a workspace inside
// its state directory, made a task's relative paths miss the task and
// its guard refuse sqlite3 on a task's database there).
func openclawFiles(r Run) ([]File, error) {
	return jsonFile(openclawConfig, map[string]any{
		"agents": map[string]any{"defaults": map[string]any{
			"model":         map[string]any{"primary": ProviderID + "/" + r.Model},
			"sandbox":       map[string]any{"mode": "off"},
			"workspace":     r.Workdir,
			"skipBootstrap": true,
		}},
		"models": map[string]any{"mode": "merge", "providers": map[string]any{ProviderID: piProvider(r.Endpoint)}},
	})
}

func openclawArgs(r Run, instruction string) []string {
	return []string{"agent", "--local", "--session-id", SessionID, "--json", "--model", ProviderID + "/" + r.Model, "-m", instruction}
}

// SessionID is the session an OpenClaw run records its transcript under.
const SessionID = "authbench"
