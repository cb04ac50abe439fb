package toolbox

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/agent"
)

func toolsByName(ts []agent.Tool) map[string]agent.Tool {
	m := map[string]agent.Tool{}
	for _, t := range ts {
		m[t.Name] = t
	}
	return m
}

// TestTools: the model's tools call the toolbox, format its answers and
// keep each call's window; bad arguments are errors for the model.
func TestTools(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	c := serve(t, Options{Dir: dir})
	exec, explore := toolsByName(ExecutionTools(c)), toolsByName(ExplorationTools(c))
	if len(exec) != 4 || len(explore) != 5 || exec["finish"].Run == nil || explore["which"].Run == nil {
		t.Fatalf("tool sets: %v / %v", exec, explore)
	}
	for _, tool := range append(ExecutionTools(c), ExplorationTools(c)...) {
		if tool.Description == "" || tool.Parameters["type"] != "object" {
			t.Errorf("%s: no description or schema", tool.Name)
		}
		if _, err := json.Marshal(tool.Parameters); err != nil {
			t.Errorf("%s: schema: %v", tool.Name, err)
		}
	}
	ctx := context.Background()
	run := func(tool agent.Tool, args string) (agent.Observation, error) {
		t.Helper()
		return tool.Run(ctx, json.RawMessage(args))
	}
	obs, err := run(exec["shell"], `{"command": "echo hi; exit 4"}`)
	if err != nil || obs.Text != "hi\n[exit code: 4]" || obs.Extra["start_ns"] == nil || obs.Extra["end_ns"] == nil {
		t.Errorf("shell: %+v %v", obs, err)
	}
	obs, err = run(exec["read_file"], `{"path": "missing"}`)
	if err != nil || !strings.Contains(obs.Text, "no such file or directory") || obs.Extra["errno"] != "ENOENT" {
		t.Errorf("read_file missing: %+v %v", obs, err)
	}
	if obs, err = run(exec["write_file"], `{"path": "b.txt", "content": "x"}`); err != nil || !strings.HasPrefix(obs.Text, "wrote 1 bytes") {
		t.Errorf("write_file: %+v %v", obs, err)
	}
	if obs, err = run(explore["grep"], `{"pattern": "alp", "path": "."}`); err != nil || !strings.Contains(obs.Text, "a.txt:1:alpha") {
		t.Errorf("grep: %+v %v", obs, err)
	}
	if obs, err = run(explore["which"], `{"name": "sh"}`); err != nil || !strings.Contains(obs.Text, "/sh") {
		t.Errorf("which: %+v %v", obs, err)
	}
	obs, err = run(exec["finish"], `{"summary": "all done"}`)
	if err != nil || !obs.Done || obs.Extra["summary"] != "all done" {
		t.Errorf("finish: %+v %v", obs, err)
	}
	for _, bad := range []struct{ tool, args string }{
		{"shell", `{"command": ""}`}, {"shell", `{"command": "true", "timeout_s": -1}`},
		{"shell", `{"cmd": "true"}`}, {"read_file", `{"path": 3}`},
	} {
		if _, err := run(exec[bad.tool], bad.args); err == nil {
			t.Errorf("%s %s: no error", bad.tool, bad.args)
		}
	}
	// the shell's time is bounded by the caller's
	short, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	obs, err = exec["shell"].Run(short, json.RawMessage(`{"command": "sleep 30", "timeout_s": 60}`))
	if err == nil && !strings.Contains(obs.Text, "timed out") {
		t.Errorf("shell beyond the caller's deadline: %+v", obs)
	}
	start := time.Now() // the sleep was killed at the caller's deadline: the toolbox is free
	if r := call(t, c, Request{Op: OpPing}); r.Output != "pong" || time.Since(start) > 5*time.Second {
		t.Errorf("after the bounded shell: %+v after %v", r, time.Since(start))
	}
}

// TestClientCallContext: a call whose ctx ends returns at once; the
// next call gets its own answer, not the late one.
func TestClientCallContext(t *testing.T) {
	c := serve(t, Options{Dir: t.TempDir()})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Call(ctx, Request{Op: OpShell, Command: "sleep 1; echo late"})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 900*time.Millisecond {
		t.Fatalf("call past its ctx: %v after %v", err, time.Since(start))
	}
	if r := call(t, c, Request{Op: OpShell, Command: "echo mine"}); r.Output != "mine\n" {
		t.Errorf("next call got %q", r.Output)
	}
}

// TestClientToolboxGone: a toolbox whose output ends makes calls fail
// with ErrGone.
func TestClientToolboxGone(t *testing.T) {
	r, w, _ := os.Pipe()
	inR, inW, _ := os.Pipe()
	defer inR.Close()
	c := NewClient(inW, r, nil)
	w.Close()
	if _, err := c.Call(context.Background(), Request{Op: OpPing}); !errors.Is(err, ErrGone) {
		t.Errorf("call to a gone toolbox: %v", err)
	}
	r2, w2, _ := os.Pipe()
	c = NewClient(inW, r2, nil)
	w2.Write([]byte("garbage\n"))
	if _, err := c.Call(context.Background(), Request{Op: OpPing}); !errors.Is(err, ErrGone) {
		t.Errorf("call to a toolbox answering garbage: %v", err)
	}
}
