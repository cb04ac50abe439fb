package installed

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/authbench/authbench/internal/safefile"
)

// openclaw is OpenClaw (npm openclaw): `openclaw agent --local`, one
// turn on the instruction, its tools run by its embedded agent.
var openclaw = Harness{
	Name: "openclaw", Package: "openclaw", Version: "2026.9.6", Entry: "openclaw.mjs", API: APIChatCompletions,
	Complete: []string{"--version"}, Scratch: []string{"/tmp/**"},
	// 2026.3.x (the published pin 2026.3.7) depends, through
	// @whiskeysockets/baileys (its WhatsApp channel), on libsignal from
	// GitHub by git URL; the same project's release on the registry
	// stands in for it.
	Overrides: map[string]string{"libsignal": "6.0.0"},
	Sandbox:   "off (agents.defaults.sandbox.mode \"off\"): its sandbox runs tools in Docker containers, which do not exist inside a task container; the tools run in authbench's confinement instead",
	// Its exec tool runs commands with $SHELL (else sh), and wraps each
	// child in /bin/sh to set its OOM score unless
	// OPENCLAW_CHILD_OOM_SCORE_ADJ is off: bash, the shell task specs
	// name (an oracle's solve.sh runs in it), does both.
	OwnEnv: []string{"OPENCLAW_STATE_DIR=" + State, "OPENCLAW_CONFIG_PATH=" + openclawConfig,
		"SHELL=/bin/bash", "OPENCLAW_CHILD_OOM_SCORE_ADJ=0"},
	Config: openclawFiles, Args: openclawArgs, Events: openclawEvents, Convert: sessionTrajectory,
}

func init() { register(openclaw) }

// openclawConfig is OpenClaw's configuration file.
const openclawConfig = State + "/openclaw.json"

// openclawDB is its agent database (transcript_events), relative to /.
var openclawDBFile = path.Join(strings.TrimPrefix(State, "/"), "agents", "main", "agent", "openclaw-agent.sqlite")

// openclawFiles: the run's endpoint as a custom provider, its own
// sandbox off, and the task's working directory as the directory its
// tools start in and resolve relative paths against (its default, a
// workspace inside its state directory, made a task's relative paths
// miss the task and its guard refuse sqlite3 on a task's database
// there). From 2026.9 that is agents.defaults.cwd, its workspace (its
// memory and bootstrap files, which it lists) staying in its state;
// before, it is the workspace itself, with no bootstrap files seeded.
func openclawFiles(r Run) ([]File, error) {
	defaults := map[string]any{
		"model":   map[string]any{"primary": ProviderID + "/" + r.Model},
		"sandbox": map[string]any{"mode": "off"},
	}
	if openclawHasCwd(r.Version) {
		defaults["cwd"] = r.Workdir
	} else {
		defaults["workspace"], defaults["skipBootstrap"] = r.Workdir, true
	}
	return jsonFile(openclawConfig, map[string]any{
		"agents": map[string]any{"defaults": defaults},
		"models": map[string]any{"mode": "merge", "providers": map[string]any{ProviderID: piProvider(r.Endpoint)}},
	})
}

// openclawHasCwd reports whether OpenClaw version (YEAR.MONTH.DAY)
// takes agents.defaults.cwd: 2026.9.6 does, 2026.3.7 does not (its
// configuration refuses unknown keys); versions between are given the
// older form, which both take.
func openclawHasCwd(version string) bool {
	var year, month int
	if _, err := fmt.Sscanf(version, "%d.%d.", &year, &month); err != nil {
		return false
	}
	return year > 2026 || year == 2026 && month >= 9
}

// openclawArgs: the model is its configuration's primary one (the
// --model option of later versions is absent from 2026.3.x).
func openclawArgs(r Run, instruction string) []string {
	return []string{"agent", "--local", "--session-id", SessionID, "--json", "-m", instruction}
}

// openclawSessions is where versions before its agent database
// (2026.3.x) keep session files, relative to /.
var openclawSessions = path.Join(strings.TrimPrefix(State, "/"), "agents", "main", "sessions")

// openclawEvents reads OpenClaw's transcript_events from its agent
// database or, when it has none (2026.3.x), its session file (the same
// events, a line each).
func openclawEvents(root *safefile.Dir) ([][]byte, string, error) {
	events, file, err := sqliteEvents(root, openclawDBFile, `SELECT event_json FROM transcript_events WHERE event_json IS NOT NULL ORDER BY session_id, seq`)
	if errors.Is(err, fs.ErrNotExist) {
		return sessionFileEvents(root, path.Join(openclawSessions, "*.jsonl"), "openclaw")
	}
	return events, file, err
}

// SessionID is the session an OpenClaw run records its transcript under.
const SessionID = "authbench"
