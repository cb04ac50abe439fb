package taskrun

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/authbench/authbench/agent/agenttest"
	"github.com/authbench/authbench/agent/installed"
	"github.com/authbench/authbench/agent/modelconfig"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
)

// harnessSelected says whether AUTHBENCH_TEST_HARNESSES selects the
// harness: "all" (`make test-harnesses`) or a comma-separated list naming
// it. Claude Code's and Codex's layers are ~400 MB npm installs each
// (their compiled binaries), too long to build in the default run.
func harnessSelected(name string) bool {
	sel := os.Getenv("AUTHBENCH_TEST_HARNESSES")
	return sel == "all" || slices.Contains(strings.Split(sel, ","), name)
}

// harnessAPI is what a suite-task test needs of a harness's model API:
// its scripted server, its shell tool's call of a command, and the
// header that must carry the real key at the endpoint.
type harnessAPI struct {
	server    func(t testing.TB, replies ...agenttest.Reply) *agenttest.Server
	shell     func(id, cmd string) agenttest.Call
	keyHeader string
	key       func(key string) string
	// maxTokens is the request's key of the answer bound ("": the
	// harness sends none).
	maxTokens string
	// refusedHosts are hosts the harness is known to try beside the
	// model (refused and recorded, the run unaffected); any other
	// refused attempt fails the test.
	refusedHosts []string
}

// solveSuiteTask runs harness spec (NAME[@VERSION]), confined under the spec of the suite
// task data-sqlite-kpi, against api's scripted server: its shell tool
// runs the task's oracle steps (all but the oracle's cd: the harness
// starts in the WORKDIR, /srv/analytics; the answer has a text too), then
// the key probe (keyProbe), then it ends. The layer is made
// first and its (cold) build time and size logged. The task is solved,
// the first command's cwd is the WORKDIR, every model request carries the
// real key (injected by the proxy) and the run's answer bound, nothing
// else on the network is tried, the key is in no process or file inside
// the container and no file of the run, the transcript is kept and
// converted to ATIF with the scripted usage, and the harness's runtime
// is listed as wider than π.
func solveSuiteTask(t *testing.T, spec string, api harnessAPI) {
	if !harnessSelected(spec) {
		t.Skipf("AUTHBENCH_TEST_HARNESSES=all (or naming %s) runs it (`make test-harnesses`)", spec)
	}
	setup(t)
	h, _, _, err := installed.ParseName("installed:" + spec)
	if err != nil {
		t.Fatal(err)
	}
	name := h.Name
	start := time.Now()
	layer, built, err := installed.Layer(context.Background(), harnessCache, h, testSelf, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("layer %s: built now %v, %v, %d MB", filepath.Base(layer), built, time.Since(start).Round(time.Second), dirSize(layer)>>20)

	task, err := tasks.Load(filepath.Join("..", "tasks", "suite", "data-sqlite-kpi"))
	if err != nil {
		t.Fatal(err)
	}
	solve, err := os.ReadFile(filepath.Join(task.Dir, "solution", "solve.sh"))
	if err != nil {
		t.Fatal(err)
	}
	steps := strings.Replace(string(solve), "cd /srv/analytics\n", "", 1)
	replies := []agenttest.Reply{
		{Content: "Running the oracle's steps.", ToolCalls: []agenttest.Call{api.shell("call_1", `echo "cwd=$PWD"; `+steps+`echo solved`)}, PromptTokens: 1200, CompletionTokens: 80},
		{ToolCalls: []agenttest.Call{api.shell("call_2", keyProbe)}, PromptTokens: 1400, CompletionTokens: 30},
		{Content: "done", PromptTokens: 1500, CompletionTokens: 6},
	}
	srv := api.server(t, replies...)
	task.Config.Agent.TimeoutSec = 300
	dir := t.TempDir()
	cfg := modelconfig.Config{BaseURL: srv.URL, APIKey: testAPIKey, Model: "test-model"}
	res, err := runWith(t, Options{Task: task, Source: runapi.SourceSpec, Agent: "installed:" + spec + ":test-model",
		Model: &cfg, Dir: dir, HarnessCache: harnessCache, Log: zaptest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != len(replies) {
		stdout, _ := os.ReadFile(filepath.Join(dir, runapi.FileAgentStdout))
		stderr, _ := os.ReadFile(filepath.Join(dir, runapi.FileAgentStderr))
		t.Fatalf("%d model requests, want 3; exit %d, denials %+v; agent stdout:\n%s\nagent stderr:\n%s", len(reqs), res.ExitCode, res.Denials, tail(stdout, 2000), tail(stderr, 2000))
	}
	got := agenttest.LastToolResult(reqs[1])
	if !strings.Contains(got, "cwd=/srv/analytics\n") || !strings.Contains(got, "solved") {
		t.Errorf("the oracle's steps through the shell tool: %q", got)
	}
	if got := agenttest.LastToolResult(reqs[2]); !strings.Contains(got, "key-in-processes=0 key-in-files=0") || strings.Contains(got, "scanned=0") {
		t.Errorf("the key probe: %q", got)
	}
	for i, req := range reqs {
		if v := req.Header.Get(api.keyHeader); v != api.key(testAPIKey) {
			t.Errorf("request %d: %s %q, want the real key (injected by the proxy)", i, api.keyHeader, v)
		}
		var body map[string]any
		_ = json.Unmarshal(req.Body, &body)
		if api.maxTokens != "" && body[api.maxTokens] != float64(8192) {
			t.Errorf("request %d: %s %v, want the default bound 8192", i, api.maxTokens, body[api.maxTokens])
		}
	}
	if !res.Utility || res.Error != "" {
		t.Errorf("utility %v error %q exit %d denials %+v", res.Utility, res.Error, res.ExitCode, res.Denials)
	}
	t.Logf("denials (outside π, refused): %d", len(res.Denials))
	for _, d := range res.Denials {
		t.Logf("  %s %s %s %s ×%d", d.Op, d.Axis, d.Path, d.Errno, d.Count)
	}
	noKeyIn(t, dir)
	traj := readTrajectory(t, dir)
	for _, want := range []string{`"name": "` + name + `"`, "Running the oracle's steps.", `"version": "` + h.Version + `"`, `"function_name":"` + api.shell("", "").Name + `"`, "cwd=/srv/analytics", "solved"} {
		if !strings.Contains(traj, want) {
			t.Errorf("trajectory lacks %s", want)
		}
	}
	if tk := res.AgentTokens; tk == nil || tk.Prompt != 4100 || tk.Completion != 116 || res.HarnessModel != "test-model" {
		t.Errorf("agent tokens %+v of model %q, want the scripted usage (4100 in, 116 out)", tk, res.HarnessModel)
	}
	if st, err := os.Stat(filepath.Join(dir, runapi.FileHarnessTranscript)); err != nil || st.Size() == 0 {
		t.Errorf("harness transcript: %v", err)
	}
	wider := false
	for _, w := range res.PlanWiderThanPolicy {
		wider = wider || w.Kind == "agent-harness"
	}
	net, _ := os.ReadFile(filepath.Join(dir, runapi.FileNetwork))
	known := 0
	for _, l := range strings.Split(string(net), "\n") {
		var ev struct {
			Host    string
			Allowed bool
		}
		if json.Unmarshal([]byte(l), &ev) == nil && !ev.Allowed && slices.Contains(api.refusedHosts, ev.Host) {
			known++
		}
	}
	if !wider || res.Harness != name+" "+h.Version || res.HarnessVersion != h.Version || res.Network == nil || res.Network.Events.Refused != known {
		t.Errorf("harness %q, wider %v, network %+v:\n%s", res.Harness, wider, res.Network, tail(net, 3000))
	}
}

// dirSize is the bytes of the regular files under dir.
func dirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// harnessShell is a call of a shell tool taking the command under key.
func harnessShell(tool, key string) func(id, cmd string) agenttest.Call {
	return func(id, cmd string) agenttest.Call {
		args, _ := json.Marshal(map[string]any{key: cmd})
		return agenttest.Call{ID: id, Name: tool, Arguments: string(args)}
	}
}

// messagesAPI is Claude Code's: Anthropic Messages (the key as
// x-api-key, the answer bound as max_tokens), its Bash tool.
var messagesAPI = harnessAPI{server: agenttest.NewMessages, shell: harnessShell("Bash", "command"),
	keyHeader: "X-Api-Key", key: func(k string) string { return k }, maxTokens: "max_tokens"}

// responsesAPI is Codex's: OpenAI Responses (the key as a bearer
// Authorization), its exec_command tool taking {"cmd": …}.
var responsesAPI = harnessAPI{server: agenttest.NewResponses, shell: harnessShell("exec_command", "cmd"),
	keyHeader: "Authorization", key: func(k string) string { return "Bearer " + k }}

// TestInstalledClaudeCodeSolvesASuiteTask: Claude Code, speaking
// Anthropic's Messages API to the scripted server (its key as
// x-api-key), runs the oracle's steps through its Bash tool.
func TestInstalledClaudeCodeSolvesASuiteTask(t *testing.T) {
	solveSuiteTask(t, "claude-code", messagesAPI)
}

// TestInstalledCodexSolvesASuiteTask: Codex, speaking OpenAI's Responses
// API to the scripted server (its key as a bearer Authorization), runs
// the oracle's steps through its exec_command tool.
func TestInstalledCodexSolvesASuiteTask(t *testing.T) {
	solveSuiteTask(t, "codex", responsesAPI)
}

// TestInstalledClaudeCodeScriptPinSolvesASuiteTask: a pin from before
// Claude Code's compiled binary (2.1.112, its Node.js script) solves the
// same task the same way. That release also tries api.anthropic.com:443
// once, after its last answer, whatever its base URL (its policy limits
// for API-key users): refused and recorded.
func TestInstalledClaudeCodeScriptPinSolvesASuiteTask(t *testing.T) {
	solveSuiteTask(t, "claude-code@2.1.112", harnessAPI{server: agenttest.NewMessages, shell: harnessShell("Bash", "command"),
		keyHeader: "X-Api-Key", key: func(k string) string { return k }, maxTokens: "max_tokens", refusedHosts: []string{"api.anthropic.com"}})
}

// TestInstalledClaudeCodeSubagentUnderTheSpec: Claude Code's model
// delegates the secret-sensitive fixture's task to a sub-agent (its
// Agent tool, in the foreground); the sub-agent's Bash call writes
// /app/total.txt under the spec and it reports back. The sub-agent's
// own transcript is read: its steps are in trajectory.json, naming the
// sub-agent and the Agent call, and its scripted usage counts in the
// run's agent tokens.
func TestInstalledClaudeCodeSubagentUnderTheSpec(t *testing.T) {
	if !harnessSelected("claude-code") {
		t.Skip("AUTHBENCH_TEST_HARNESSES=all (or naming claude-code) runs it (`make test-harnesses`)")
	}
	setup(t)
	agentArgs, _ := json.Marshal(map[string]any{"description": "sum the amounts", "subagent_type": "general-purpose", "run_in_background": false,
		"prompt": "Sum the amount column of /app/data.csv into /app/total.txt."})
	replies := []agenttest.Reply{
		{Content: "Delegating.", ToolCalls: []agenttest.Call{{ID: "toolu_main1", Name: "Agent", Arguments: string(agentArgs)}}, PromptTokens: 1000, CompletionTokens: 50},
		{ToolCalls: []agenttest.Call{harnessShell("Bash", "command")("toolu_sub1", `cd /app && awk -F, 'NR > 1 { s += $2 } END { print s }' data.csv > total.txt && echo wrote-total`)}, PromptTokens: 300, CompletionTokens: 20},
		{Content: "Wrote the total.", PromptTokens: 400, CompletionTokens: 8},
		{Content: "done", PromptTokens: 1100, CompletionTokens: 2},
	}
	srv := agenttest.NewMessages(t, replies...)
	task := fixture(t, "secret-sensitive")
	task.Config.Agent.TimeoutSec = 300
	dir := t.TempDir()
	cfg := modelconfig.Config{BaseURL: srv.URL, APIKey: testAPIKey, Model: "test-model"}
	res, err := runWith(t, Options{Task: task, Source: runapi.SourceSpec, Agent: "installed:claude-code:test-model",
		Model: &cfg, Dir: dir, HarnessCache: harnessCache, Log: zaptest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != len(replies) {
		stderr, _ := os.ReadFile(filepath.Join(dir, runapi.FileAgentStderr))
		t.Fatalf("%d model requests, want %d; denials %+v; agent stderr:\n%s", len(reqs), len(replies), res.Denials, tail(stderr, 2000))
	}
	if got := agenttest.LastToolResult(reqs[2]); !strings.Contains(got, "wrote-total") {
		t.Errorf("the sub-agent's Bash call: %q", got)
	}
	if !res.Utility || res.Error != "" || res.HarnessError != "" {
		t.Errorf("utility %v error %q harness error %q denials %+v", res.Utility, res.Error, res.HarnessError, res.Denials)
	}
	if tk := res.AgentTokens; tk == nil || tk.Prompt != 2800 || tk.Completion != 80 {
		t.Errorf("agent tokens %+v, want the session's and the sub-agent's usage (2800 in, 80 out)", tk)
	}
	traj := readTrajectory(t, dir)
	for _, want := range []string{`"subagent_id"`, `"parent_tool_call_id":"toolu_main1"`, `"tool_call_id":"toolu_sub1"`, "wrote-total", "Wrote the total."} {
		if !strings.Contains(traj, want) {
			t.Errorf("trajectory lacks %s:\n%s", want, tail([]byte(traj), 3000))
		}
	}
}
