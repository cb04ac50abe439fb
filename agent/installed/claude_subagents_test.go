package installed

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/agent"
	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/internal/safefile/safefiletest"
)

// Claude Code 2.1.332's recording of a run whose model called the Agent
// tool (a foreground general-purpose sub-agent, toolu_main1) against the
// scripted Messages server: the session file, and the sub-agent's own
// file (its Bash call toolu_sub1, `wc -l < a.txt`, then its report), its
// attachments and request shapes left out. Usage scripted: the session
// 1000+7 in, 50+1 out; the sub-agent 300+400 in, 20+8 out.
const (
	claudeSubSession = "testdata/claude-subagent-session.jsonl"
	claudeSubAgent   = "testdata/claude-subagent-agent-ab40e82d31abd3c99.jsonl"
	claudeSubAgentID = "ab40e82d31abd3c99"
)

// writeClaudeSubagentRun lays the recorded files out in upper as Claude
// Code does, below its HOME.
func writeClaudeSubagentRun(t *testing.T, upper string) (subagentFile string) {
	t.Helper()
	project := filepath.Join(upper, strings.TrimPrefix(claudeDir, "/"), "projects", "-app")
	subagentFile = filepath.Join(project, ClaudeSessionID, "subagents", "agent-"+claudeSubAgentID+".jsonl")
	for src, dst := range map[string]string{claudeSubSession: filepath.Join(project, ClaudeSessionID+".jsonl"), claudeSubAgent: subagentFile} {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return subagentFile
}

// TestClaudeSubagentTranscript: the sub-agent's file is read beneath the
// upper layer after the session's, and its steps are appended to the
// trajectory after the session's (the sub-agent's prompt, its Bash call
// with the result, its report), each naming the sub-agent and the Agent
// call that started it; its tokens count in the trajectory's.
func TestClaudeSubagentTranscript(t *testing.T) {
	upper := t.TempDir()
	writeClaudeSubagentRun(t, upper)
	h := Harnesses["claude-code"]
	events, err := transcriptWithin(t, h, upper)
	if err != nil {
		t.Fatal(err)
	}
	tr := ToTrajectory(h, "test-model", events)
	var main, sub []agent.Step
	for _, s := range tr.Steps {
		if s.Extra["subagent_id"] == nil {
			if len(sub) > 0 {
				t.Fatalf("a session step after the sub-agent's: %+v", s)
			}
			main = append(main, s)
			continue
		}
		if s.Extra["subagent_id"] != claudeSubAgentID || s.Extra["parent_tool_call_id"] != "toolu_main1" {
			t.Errorf("sub-agent step extra: %v", s.Extra)
		}
		sub = append(sub, s)
	}
	if len(main) != 3 || len(main[1].ToolCalls) != 1 || main[1].ToolCalls[0].FunctionName != "Agent" || main[2].Message != "done" {
		t.Fatalf("session steps: %+v", main)
	}
	if len(sub) != 3 {
		t.Fatalf("sub-agent steps: %+v", sub)
	}
	if sub[0].Source != agent.SourceUser || !strings.Contains(sub[0].Message, "Count the lines of a.txt") {
		t.Errorf("the sub-agent's prompt: %+v", sub[0])
	}
	call := sub[1]
	if len(call.ToolCalls) != 1 || call.ToolCalls[0].FunctionName != "Bash" || call.ToolCalls[0].ToolCallID != "toolu_sub1" ||
		call.Observation == nil || len(call.Observation.Results) != 1 || call.Observation.Results[0].Content != "1" {
		t.Errorf("the sub-agent's call: %+v", call)
	}
	if call.Metrics == nil || call.Metrics.PromptTokens != 300 || call.Metrics.CompletionTokens != 20 {
		t.Errorf("the sub-agent call's usage: %+v", call.Metrics)
	}
	if sub[2].Message != "a.txt has 1 line." || sub[2].Metrics == nil || sub[2].Metrics.PromptTokens != 400 {
		t.Errorf("the sub-agent's report: %+v", sub[2])
	}
	if fm := tr.FinalMetrics; fm.TotalPromptTokens != 1707 || fm.TotalCompletionTokens != 79 || fm.TotalSteps != 6 {
		t.Errorf("final metrics %+v, want the session's and the sub-agent's usage (1707 in, 79 out)", fm)
	}
	if tr.Extra["skipped_events"] != nil {
		t.Errorf("skipped: %v", tr.Extra)
	}
}

// TestClaudeSubagentTranscriptHostile: a sub-agent file the agent
// replaced by a FIFO, or whose subagents directory it replaced by a link
// to a root-only host directory (holding a sub-agent file there), is
// refused at once: nothing is read through it and the reader never
// blocks. Sub-agent lines planted in the session file itself convert as
// that sub-agent's (older releases wrote them there), and a result
// naming an agentId that never ran links nothing.
func TestClaudeSubagentTranscriptHostile(t *testing.T) {
	h := Harnesses["claude-code"]
	upper := t.TempDir()
	file := writeClaudeSubagentRun(t, upper)
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	safefiletest.FIFO(t, file)
	if _, err := transcriptWithin(t, h, upper); !errors.Is(err, safefile.ErrNotRegular) {
		t.Errorf("a FIFO as the sub-agent file: %v, want it refused", err)
	}

	upper = t.TempDir()
	file = writeClaudeSubagentRun(t, upper)
	dir := filepath.Dir(file)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(upper, dir)
	host := safefiletest.HostDir(t, path.Join(rel, "agent-host.jsonl"))
	safefiletest.LinkDir(t, dir, filepath.Join(host, rel))
	if events, err := transcriptWithin(t, h, upper); !errors.Is(err, safefile.ErrSymlink) {
		t.Errorf("%d events, %v through a linked subagents directory, want the link refused", len(events), err)
	}
	// The session's directory linked instead.
	upper = t.TempDir()
	file = writeClaudeSubagentRun(t, upper)
	dir = filepath.Dir(filepath.Dir(file))
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	rel, _ = filepath.Rel(upper, dir)
	host = safefiletest.HostDir(t, path.Join(rel, "subagents", "agent-host.jsonl"))
	safefiletest.LinkDir(t, dir, filepath.Join(host, rel))
	if events, err := transcriptWithin(t, h, upper); !errors.Is(err, safefile.ErrSymlink) {
		t.Errorf("%d events, %v through a linked session directory, want the link refused", len(events), err)
	}

	planted := [][]byte{
		[]byte(`{"type":"user","isSidechain":true,"agentId":"x1","sessionId":"s","message":{"role":"user","content":"sub prompt"}}`),
		[]byte(`{"type":"assistant","isSidechain":true,"agentId":"x1","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"sub answer"}],"usage":{"input_tokens":5,"output_tokens":2}}}`),
		[]byte(`{"type":"user","sessionId":"s","toolUseResult":{"agentId":"ghost"},"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"nobody","content":"x"}]}}`),
		[]byte(`{"type":"assistant","isSidechain":true,"agentId":"x1","message":null}`),
		[]byte(`{"isSidechain":true,"agentId":"x1"`),
	}
	tr := ToTrajectory(h, "m", planted)
	if len(tr.Steps) != 2 || tr.Steps[1].Message != "sub answer" || tr.Steps[1].Extra["subagent_id"] != "x1" || tr.Steps[1].Extra["parent_tool_call_id"] != nil {
		t.Errorf("planted sub-agent steps: %+v", tr.Steps)
	}
	if tr.FinalMetrics.TotalPromptTokens != 5 || tr.Extra["skipped_events"] != 3 {
		t.Errorf("metrics %+v extra %v", tr.FinalMetrics, tr.Extra)
	}
}
