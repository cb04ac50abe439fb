package installed

import (
	"bufio"
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	_ "modernc.org/sqlite" // database/sql driver "sqlite"

	"github.com/authbench/authbench/agent"
	"github.com/authbench/authbench/internal/safefile"
)

// Bounds on a transcript, which the agent wrote and may have made
// hostile: the bytes read, and each text kept.
const (
	MaxTranscriptBytes = 64 << 20
	maxTextBytes       = 256 << 10
)

// sessionEvent is one line of a pi session file, and one
// transcript_events row of OpenClaw (the same format).
type sessionEvent struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	Message   *sessionMessage `json:"message"`
}

type sessionMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Model      string          `json:"model"`
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	IsError    bool            `json:"isError"`
	Usage      *struct {
		Input     int64 `json:"input"`
		Output    int64 `json:"output"`
		CacheRead int64 `json:"cacheRead"`
	} `json:"usage"`
}

// contentPart is one part of a message's content.
type contentPart struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// parts decodes content: a string or an array of parts.
func parts(raw json.RawMessage) []contentPart {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []contentPart{{Type: "text", Text: s}}
	}
	var ps []contentPart
	_ = json.Unmarshal(raw, &ps)
	return ps
}

// clip cuts s to maxTextBytes on a rune boundary, noting it in cut.
func clip(s string, cut *bool) string {
	if len(s) <= maxTextBytes {
		return s
	}
	*cut = true
	return strings.ToValidUTF8(s[:maxTextBytes], "")
}

// ToTrajectory converts a harness's session events (JSON, in order, as
// h.Events read them) to an ATIF trajectory with h.Convert. Pure.
func ToTrajectory(h Harness, model string, events [][]byte) *agent.Trajectory {
	return h.Convert(h, model, events)
}

// newTrajectory is an empty trajectory of h's run.
func newTrajectory(h Harness, model string) *agent.Trajectory {
	return &agent.Trajectory{SchemaVersion: agent.SchemaVersion, Agent: agent.AgentInfo{Name: h.Name, Version: h.Version, ModelName: model},
		Steps: []agent.Step{}, Extra: map[string]any{}}
}

// sessionTrajectory converts pi's session events (OpenClaw's are the
// same format): each user (system) message a user (system) step, each
// assistant message an agent step (text, thinking as reasoning_content,
// tool calls, token usage), each tool result an observation result of
// the agent step that called it. Lines that are not JSON, and events of
// other types, are counted in extra.skipped_events. Pure.
func sessionTrajectory(h Harness, model string, events [][]byte) *agent.Trajectory {
	t := newTrajectory(h, model)
	skipped, truncated := 0, false
	callStep := map[string]int{} // tool call id → index of its agent step
	for _, line := range events {
		var ev sessionEvent
		if err := json.Unmarshal(line, &ev); err != nil {
			skipped++
			continue
		}
		if ev.Type == "session" && t.SessionID == "" {
			t.SessionID = ev.ID
		}
		if ev.Type != "message" || ev.Message == nil {
			if ev.Type != "session" {
				skipped++
			}
			continue
		}
		m := ev.Message
		switch m.Role {
		case "user", "system":
			var text []string
			for _, p := range parts(m.Content) {
				if p.Type == "text" {
					text = append(text, p.Text)
				}
			}
			src := agent.SourceUser
			if m.Role == "system" {
				src = agent.SourceSystem
			}
			t.Steps = append(t.Steps, agent.Step{Timestamp: ev.Timestamp, Source: src, Message: clip(strings.Join(text, "\n"), &truncated)})
		case "assistant":
			s := agent.Step{Timestamp: ev.Timestamp, Source: agent.SourceAgent, ModelName: m.Model}
			var text, thinking []string
			for _, p := range parts(m.Content) {
				switch p.Type {
				case "text":
					text = append(text, p.Text)
				case "thinking":
					thinking = append(thinking, p.Thinking)
				case "toolCall":
					s.ToolCalls = append(s.ToolCalls, agent.ToolCall{ToolCallID: p.ID, FunctionName: p.Name, Arguments: objectOrEmpty(p.Arguments)})
					callStep[p.ID] = len(t.Steps)
				}
			}
			s.Message = clip(strings.Join(text, "\n"), &truncated)
			s.ReasoningContent = clip(strings.Join(thinking, "\n"), &truncated)
			if m.Usage != nil {
				s.Metrics = &agent.Metrics{PromptTokens: m.Usage.Input, CompletionTokens: m.Usage.Output, CachedTokens: m.Usage.CacheRead}
			}
			t.Steps = append(t.Steps, s)
		case "toolResult":
			i, ok := callStep[m.ToolCallID]
			if !ok {
				skipped++
				continue
			}
			var text []string
			for _, p := range parts(m.Content) {
				if p.Type == "text" {
					text = append(text, p.Text)
				}
			}
			content := clip(strings.Join(text, "\n"), &truncated)
			if m.IsError {
				content = "error: " + content
			}
			observe(&t.Steps[i], m.ToolCallID, content)
		default:
			skipped++
		}
	}
	return finishTrajectory(t, skipped, truncated)
}

// finishTrajectory numbers t's steps, sums their metrics and notes what
// its converter skipped and cut.
func finishTrajectory(t *agent.Trajectory, skipped int, truncated bool) *agent.Trajectory {
	fm := &agent.FinalMetrics{TotalSteps: len(t.Steps)}
	for i := range t.Steps {
		t.Steps[i].StepID = i + 1
		if m := t.Steps[i].Metrics; m != nil {
			fm.TotalPromptTokens += m.PromptTokens
			fm.TotalCompletionTokens += m.CompletionTokens
			fm.TotalCachedTokens += m.CachedTokens
		}
	}
	t.FinalMetrics = fm
	if skipped > 0 {
		t.Extra["skipped_events"] = skipped
	}
	if truncated {
		t.Extra["truncated"] = true
	}
	if len(t.Extra) == 0 {
		t.Extra = nil
	}
	return t
}

// Transcript reads the session events h recorded in its State directory
// of the run's upper layer upper (a host path), in order, and the file
// they came from (the artifact to keep). Everything below upper is the
// agent's: it is read beneath upper's descriptor, no link followed in any
// component and only regular files read (internal/safefile), so a
// sessions directory replaced by a link to a host directory, or a FIFO
// where a session file was, is refused. No events is an error.
func Transcript(h Harness, upper string) (events [][]byte, file string, err error) {
	if h.Events == nil {
		return nil, "", fmt.Errorf("harness %s: no transcript", h.Name)
	}
	root, err := safefile.OpenReadDir(upper)
	if err != nil {
		return nil, "", fmt.Errorf("harness %s: upper layer: %w", h.Name, err)
	}
	defer root.Close()
	return h.Events(root)
}

// sessionFileEvents reads the lines of a session file (the newest by
// name, if several) matching the glob pattern under root; who names the
// harness in errors.
func sessionFileEvents(root *safefile.Dir, pattern, who string) ([][]byte, string, error) {
	dir := path.Dir(pattern)
	files, err := fs.Glob(root.FS(), pattern)
	if err == nil && len(files) == 0 {
		// Say why when the directory itself was refused (a link).
		if _, rerr := fs.ReadDir(root.FS(), dir); rerr != nil {
			return nil, "", fmt.Errorf("no %s session file: %w", who, rerr)
		}
	}
	if err != nil || len(files) == 0 {
		return nil, "", fmt.Errorf("no %s session file in %s", who, root.Join(dir))
	}
	slices.Sort(files)
	file := files[len(files)-1]
	f, err := root.Open(file)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	var events [][]byte
	sc := bufio.NewScanner(io.LimitReader(f, MaxTranscriptBytes))
	sc.Buffer(make([]byte, 64<<10), MaxTranscriptBytes)
	for sc.Scan() {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			events = append(events, slices.Clone(line))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, "", fmt.Errorf("%s: %w", root.Join(file), err)
	}
	return events, root.Join(file), nil
}

// sqliteEvents reads the events query selects (one JSON text a row)
// from a private copy of the database db under root (and its write-ahead
// log), opened read-only.
func sqliteEvents(root *safefile.Dir, db, query string) ([][]byte, string, error) {
	tmp, err := os.MkdirTemp("", "authbench-transcript-")
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(tmp)
	for _, suffix := range []string{"", "-wal"} {
		src, err := root.Open(db + suffix)
		if err != nil {
			if suffix == "" {
				return nil, "", err
			}
			continue
		}
		dst, err := os.Create(filepath.Join(tmp, "db"+suffix))
		if err == nil {
			_, err = io.Copy(dst, io.LimitReader(src, MaxTranscriptBytes))
			dst.Close()
		}
		src.Close()
		if err != nil {
			return nil, "", err
		}
	}
	conn, err := sql.Open("sqlite", "file:"+filepath.Join(tmp, "db")+"?_pragma=query_only(1)")
	if err != nil {
		return nil, "", err
	}
	defer conn.Close()
	rows, err := conn.Query(query)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", root.Join(db), err)
	}
	defer rows.Close()
	var events [][]byte
	total := 0
	for rows.Next() {
		var ev []byte
		if err := rows.Scan(&ev); err != nil {
			return nil, "", err
		}
		if total += len(ev); total > MaxTranscriptBytes {
			break
		}
		events = append(events, ev)
	}
	if len(events) == 0 {
		return nil, "", fmt.Errorf("%s: no transcript events", root.Join(db))
	}
	return events, root.Join(db), rows.Err()
}

// objectOrEmpty is args when it is a JSON object, else {} (ATIF's
// arguments are an object).
func objectOrEmpty(args json.RawMessage) json.RawMessage {
	if !json.Valid(args) || !bytes.HasPrefix(bytes.TrimSpace(args), []byte("{")) {
		return json.RawMessage("{}")
	}
	return args
}

// observe adds a tool call's result to the agent step s that made it.
func observe(s *agent.Step, callID, content string) {
	if s.Observation == nil {
		s.Observation = &agent.StepObservation{}
	}
	s.Observation.Results = append(s.Observation.Results, agent.ObservationResult{SourceCallID: callID, Content: content})
}
