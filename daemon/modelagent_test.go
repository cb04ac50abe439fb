package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/authbench/authbench/agent/agenttest"
	"github.com/authbench/authbench/agent/modelconfig"
	"github.com/authbench/authbench/runapi"
)

// syncBuffer is a log sink safe for the daemon's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestModelAgentKeyNeverStored: an openai:MODEL task run's API key
// travels in the request and reaches the model, and is in no file of the
// run's directory or the daemon's state dir, nor in its logs or records.
func TestModelAgentKeyNeverStored(t *testing.T) {
	const key = "sk-daemon-test-3c1d9e8f-never-stored"
	logs := &syncBuffer{}
	log := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(logs), zap.DebugLevel))
	d, dir := startTaskDaemon(t, Config{Log: log})
	cmd, _ := json.Marshal(map[string]string{"command": "wc -l < /app/input.txt | tr -d ' ' > /app/count.txt"})
	srv := agenttest.New(t,
		agenttest.Reply{ToolCalls: []agenttest.Call{{ID: "a", Name: "shell", Arguments: string(cmd)}}},
		agenttest.Reply{ToolCalls: []agenttest.Call{{ID: "b", Name: "finish", Arguments: `{"summary": "counted"}`}}},
	)
	model := &modelconfig.Config{BaseURL: srv.URL, APIKey: key, Model: "m1"}
	run := submitAndWait(t, d.client, &runapi.RunRequest{Task: &runapi.TaskRequest{Dir: dir, PolicySource: "unconstrained", Agent: "openai:m1", Model: model}})
	res := run.TaskResult
	if run.State != runapi.StateSucceeded || res == nil || res.AgentStopReason != "finished" || !res.Utility {
		t.Fatalf("run %+v, result %+v", run, res)
	}
	for _, req := range srv.Requests() {
		if req.Authorization != "Bearer "+key {
			t.Errorf("the model got %q", req.Authorization)
		}
	}
	if m := run.Request.Task.Model; m == nil || m.APIKey != "" || m.BaseURL != srv.URL || res.Model == nil || res.Model.APIKey != "" {
		t.Errorf("recorded model %+v, result model %+v", m, res.Model)
	}
	if traj := readLog(t, d.client, run.ID, "trajectory"); !strings.Contains(traj, `"ATIF-v1.4"`) {
		t.Errorf("trajectory not served: %.200s", traj)
	}
	n := 0
	_ = filepath.Walk(d.state, func(p string, info os.FileInfo, err error) error {
		if err != nil || !info.Mode().IsRegular() || strings.Contains(p, "/rootfs/") {
			return nil
		}
		n++
		if data, err := os.ReadFile(p); err == nil && bytes.Contains(data, []byte(key)) {
			t.Errorf("%s holds the API key", p)
		}
		return nil
	})
	if n < 5 {
		t.Errorf("only %d files in the state dir", n)
	}
	if strings.Contains(logs.String(), key) {
		t.Error("the daemon's log holds the API key")
	}
	data, _ := json.Marshal(run)
	if bytes.Contains(data, []byte(key)) {
		t.Error("the run record holds the API key")
	}
	// the model is only for openai:MODEL, and must name the same model
	for _, bad := range []struct {
		task  runapi.TaskRequest
		field string
	}{
		{runapi.TaskRequest{Dir: dir, PolicySource: "spec", Agent: "oracle", Model: model}, "task.model"},
		{runapi.TaskRequest{Dir: dir, PolicySource: "spec", Agent: "openai:m1"}, "task.model"},
		{runapi.TaskRequest{Dir: dir, PolicySource: "spec", Agent: "openai:m2", Model: model}, "task.model.model"},
		{runapi.TaskRequest{Dir: dir, PolicySource: "spec", Agent: "openai:m1", Model: &modelconfig.Config{BaseURL: "ftp://x"}}, "task.model"},
		// an installed harness's version is one exact npm release
		{runapi.TaskRequest{Dir: dir, PolicySource: "spec", Agent: "installed:pi@latest:m1", Model: model}, "task.agent"},
	} {
		_, err := d.client.Submit(context.Background(), &runapi.RunRequest{Task: &bad.task})
		var ae *runapi.APIError
		if !errors.As(err, &ae) || ae.Status != http.StatusBadRequest || ae.Field != bad.field {
			t.Errorf("%+v: %v, want 400 naming %s", bad.task, err, bad.field)
		}
	}
}
