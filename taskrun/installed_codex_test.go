package taskrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/authbench/authbench/agent/agenttest"
	"github.com/authbench/authbench/agent/installed"
	"github.com/authbench/authbench/agent/modelconfig"
	"github.com/authbench/authbench/runapi"
)

// TestInstalledCodexApplyPatchUnderTheSpec: Codex with a model whose
// metadata offers its apply_patch tool (gpt-5.5: a freeform "custom"
// tool) applies the scripted patch that adds the task's /app/total.txt
// under the spec of the secret-sensitive fixture (in its own process:
// nothing is executed for it), as it does an apply_patch heredoc run
// through exec_command, and the task is solved. Before it, a
// command runs the helper aliases Codex made under
// $CODEX_HOME/tmp/arg0-linux/codex-arg0*/ (symbolic links to its own
// binary) by their paths: each runs Codex's apply_patch (its usage, given
// no patch), and the apply_patch alias applies a patch given as its
// argument (the spec grants writing total.txt, not reading it: the
// test cannot read it back). The plan grants no execute under the harness's state: an
// exec through a link is checked on the binary it resolves to, in the
// layer.
func TestInstalledCodexApplyPatchUnderTheSpec(t *testing.T) {
	if !harnessSelected("codex") {
		t.Skip("AUTHBENCH_TEST_HARNESSES=all (or naming codex) runs it (`make test-harnesses`)")
	}
	setup(t)
	addTotal := func(v string) string { return "*** Begin Patch\n*** Add File: total.txt\n+" + v + "\n*** End Patch\n" }
	aliases := `echo "cwd=$PWD"; for a in "$CODEX_HOME"/tmp/arg0-linux/codex-arg0*/*; do read -r usage < <("$a" </dev/null 2>&1); echo "alias ${a##*/}: $usage"; done; ` +
		`set -- "$CODEX_HOME"/tmp/arg0-linux/codex-arg0*/apply_patch; "$1" '` + addTotal("11") + `'; echo "rc=$?"`
	srv := agenttest.NewResponses(t,
		agenttest.Reply{ToolCalls: []agenttest.Call{harnessShell("exec_command", "cmd")("c1", aliases)}, PromptTokens: 100, CompletionTokens: 10},
		agenttest.Reply{ToolCalls: []agenttest.Call{harnessShell("exec_command", "cmd")("c2", "apply_patch <<'EOF'\n"+addTotal("10")+"EOF\n")}, PromptTokens: 110, CompletionTokens: 15},
		agenttest.ResponsesCustomCall("c3", "apply_patch", addTotal("12"), 120, 20),
		agenttest.Reply{Content: "done", PromptTokens: 150, CompletionTokens: 3},
	)
	task := fixture(t, "secret-sensitive")
	task.Config.Agent.TimeoutSec = 300
	dir := t.TempDir()
	cfg := modelconfig.Config{BaseURL: srv.URL, APIKey: testAPIKey, Model: "gpt-5.5"}
	res, err := runWith(t, Options{Task: task, Source: runapi.SourceSpec, Agent: "installed:codex:gpt-5.5",
		Model: &cfg, Dir: dir, HarnessCache: harnessCache, Log: zaptest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		stderr, _ := os.ReadFile(filepath.Join(dir, runapi.FileAgentStderr))
		t.Fatalf("%d model requests, want 4; denials %+v; agent stderr:\n%s", len(reqs), res.Denials, tail(stderr, 3000))
	}
	if !strings.Contains(strings.Join(reqs[0].Tools, " "), "apply_patch") {
		t.Errorf("codex offered no apply_patch tool: %v", reqs[0].Tools)
	}
	got := agenttest.LastToolResult(reqs[1])
	t.Logf("the aliases: %q", got)
	for _, want := range []string{"cwd=/app\n", "alias apply_patch: Usage: apply_patch 'PATCH'\n", "alias applypatch: Usage: apply_patch 'PATCH'\n", "Success. Updated the following files:\nA total.txt\nrc=0\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("the aliases run by their paths: %q lacks %q", got, want)
		}
	}
	for _, w := range res.PlanWiderThanPolicy {
		if w.Axis == "execute" && strings.HasPrefix(w.Path, installed.StateRoot) {
			t.Errorf("the plan lets the agent execute under the harness's state: %+v", w)
		}
	}
	if got := agenttest.LastToolResult(reqs[2]); !strings.Contains(got, "Success. Updated the following files:\nA total.txt") {
		t.Errorf("apply_patch through exec_command: %q", got)
	}
	if got := agenttest.LastCustomToolResult(reqs[3]); !strings.Contains(got, "Success") || !strings.Contains(got, "total.txt") {
		t.Errorf("apply_patch: %q", got)
	}
	for _, d := range res.Denials {
		// (apply_patch reads a file it adds over, for its diff: that read
		// of total.txt is refused, the write not.)
		if d.Path == "/app/total.txt" && d.Axis != "read" || strings.HasPrefix(d.Path, installed.StateRoot) {
			t.Errorf("refused: %+v", d)
		}
		t.Logf("denial %s %s %s %s ×%d", d.Op, d.Axis, d.Path, d.Errno, d.Count)
	}
	if !res.Utility || res.Error != "" {
		t.Errorf("utility %v error %q exit %d denials %+v", res.Utility, res.Error, res.ExitCode, res.Denials)
	}
	traj := readTrajectory(t, dir)
	for _, want := range []string{`"function_name":"apply_patch"`, "Add File: total.txt"} {
		if !strings.Contains(traj, want) {
			t.Errorf("trajectory lacks %s", want)
		}
	}
}
