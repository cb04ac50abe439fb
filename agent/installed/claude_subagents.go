package installed

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/authbench/authbench/internal/safefile"
)

// claudeSubagentPattern matches the session files of the sub-agents
// Claude Code's Agent (Task) tool starts: one per sub-agent, in a
// directory named after the session beside the session's own file
// (projects/<working directory>/<session>/subagents/agent-<id>.jsonl),
// each line of them marked isSidechain with the sub-agent's agentId.
var claudeSubagentPattern = path.Join(strings.TrimPrefix(claudeDir, "/"), "projects", "*", ClaudeSessionID, "subagents", "agent-*.jsonl")

// claudeEvents reads its session file (one per project directory, named
// after the working directory, and session), then its sub-agents'
// files (by name), all beneath root (no link followed, only regular
// files read), at most MaxTranscriptBytes in all. A sub-agent file that
// cannot be read (a link, a FIFO) is an error: the run's transcript would
// otherwise lose the sub-agent's steps and tokens unsaid.
func claudeEvents(root *safefile.Dir) ([][]byte, string, error) {
	events, file, err := sessionFileEvents(root, path.Join(strings.TrimPrefix(claudeDir, "/"), "projects", "*", ClaudeSessionID+".jsonl"), "claude-code")
	if err != nil {
		return nil, "", err
	}
	subs, err := claudeSubagentFiles(root)
	if err != nil {
		return nil, "", err
	}
	budget := int64(MaxTranscriptBytes)
	for _, e := range events {
		budget -= int64(len(e))
	}
	for _, sub := range subs {
		lines, n, err := readLines(root, sub, budget)
		if err != nil {
			return nil, "", fmt.Errorf("claude-code sub-agent file: %w", err)
		}
		events, budget = append(events, lines...), budget-n
	}
	return events, file, nil
}

// claudeSubagentFiles are the sub-agent files beneath root, by name. A
// session or subagents directory that cannot be listed (a link) is an
// error, where a glob would skip it unsaid.
func claudeSubagentFiles(root *safefile.Dir) ([]string, error) {
	dirs, err := fs.Glob(root.FS(), path.Dir(path.Dir(claudeSubagentPattern)))
	if err != nil {
		return nil, fmt.Errorf("claude-code sub-agent files: %w", err)
	}
	for _, d := range dirs {
		if _, err := fs.ReadDir(root.FS(), path.Join(d, "subagents")); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("claude-code sub-agent files: %w", err)
		}
	}
	subs, err := fs.Glob(root.FS(), claudeSubagentPattern)
	if err != nil {
		return nil, fmt.Errorf("claude-code sub-agent files: %w", err)
	}
	slices.Sort(subs)
	return subs, nil
}

// readLines reads the non-empty lines of the regular file name beneath
// root, at most budget bytes of it, and the bytes it read.
func readLines(root *safefile.Dir, name string, budget int64) ([][]byte, int64, error) {
	if budget <= 0 {
		return nil, 0, nil
	}
	f, err := root.Open(name)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	var lines [][]byte
	var n int64
	sc := bufio.NewScanner(io.LimitReader(f, budget))
	sc.Buffer(make([]byte, 64<<10), MaxTranscriptBytes)
	for sc.Scan() {
		n += int64(len(sc.Bytes())) + 1
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			lines = append(lines, slices.Clone(line))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, 0, fmt.Errorf("%s: %w", root.Join(name), err)
	}
	return lines, n, nil
}

// claudeSubagentLine is what marks a line of a sub-agent's file, and
// what links a sub-agent to the Agent call that started it: the
// toolUseResult of that call's result names the sub-agent's agentId.
type claudeSubagentLine struct {
	IsSidechain   bool            `json:"isSidechain"`
	AgentID       string          `json:"agentId"`
	ToolUseResult json.RawMessage `json:"toolUseResult"`
	Message       *struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// claudeSubagents holds the lines of each sub-agent (by agentId, in the
// order first seen) and the Agent call that started it.
type claudeSubagents struct {
	order  []string
	lines  map[string][][]byte
	parent map[string]string
}

// take keeps line when it is a sub-agent's (reporting so), and notes the
// Agent call a main-session result links to a sub-agent.
func (s *claudeSubagents) take(line []byte) bool {
	var l claudeSubagentLine
	if json.Unmarshal(line, &l) != nil {
		return false
	}
	if l.IsSidechain && l.AgentID != "" {
		if _, seen := s.lines[l.AgentID]; !seen {
			s.order = append(s.order, l.AgentID)
		}
		s.lines[l.AgentID] = append(s.lines[l.AgentID], line)
		return true
	}
	var res struct {
		AgentID string `json:"agentId"`
	}
	if l.Message == nil || json.Unmarshal(l.ToolUseResult, &res) != nil || res.AgentID == "" {
		return false
	}
	for _, b := range claudeBlocks(l.Message.Content) {
		if b.Type == "tool_result" && b.ToolUseID != "" {
			s.parent[res.AgentID] = b.ToolUseID
		}
	}
	return false
}

// append converts each sub-agent's lines into steps appended to c's
// trajectory (its own calls and results, its usage in their metrics),
// each step's extra naming the sub-agent (subagent_id) and the Agent
// call that started it (parent_tool_call_id, when the main session
// recorded it).
func (s *claudeSubagents) append(c *claudeConverter) {
	for _, id := range s.order {
		first := len(c.t.Steps)
		sc := &claudeConverter{t: c.t, callStep: map[string]int{}, open: -1}
		for _, line := range s.lines[id] {
			sc.line(line)
		}
		c.skipped, c.truncated = c.skipped+sc.skipped, c.truncated || sc.truncated
		for i := first; i < len(c.t.Steps); i++ {
			extra := map[string]any{"subagent_id": id}
			if p, ok := s.parent[id]; ok {
				extra["parent_tool_call_id"] = p
			}
			c.t.Steps[i].Extra = extra
		}
	}
}
