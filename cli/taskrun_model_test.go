package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/authbench/authbench/agent"
	"github.com/authbench/authbench/cli/core"
	"github.com/authbench/authbench/runapi"
)

// TestTaskRunModelFlags: --agent openai:MODEL takes the model options of
// its flags and the key from the variable --api-key-env names, into the
// daemon request; bad names and missing keys are usage errors.
func TestTaskRunModelFlags(t *testing.T) {
	t.Setenv("TB_MODEL_KEY", "sk-from-env")
	t.Setenv("OPENAI_BASE_URL", "")
	parse := func(args ...string) taskRunFlags {
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		f := taskRunFlags{specPolicy: true, semantics: "published", models: modelFlags{model: agent.AddFlags(fs)}}
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return f
	}
	f := parse("--base-url", "http://127.0.0.1:9/v1", "--api-key-env", "TB_MODEL_KEY", "--max-turns", "7")
	f.agent = "openai:qwen3"
	req, err := f.taskRequest("/nonexistent/task")
	if err != nil {
		t.Fatal(err)
	}
	m := req.Task.Model
	if m == nil || m.Model != "qwen3" || m.BaseURL != "http://127.0.0.1:9/v1" || m.APIKey != "sk-from-env" || m.MaxTurns != 7 {
		t.Fatalf("model %+v", m)
	}
	f.agent = "oracle"
	if req, err := f.taskRequest("/nonexistent/task"); err != nil || req.Task.Model != nil {
		t.Errorf("oracle: model %+v, %v", req.Task.Model, err)
	}
	for _, bad := range []struct {
		agent string
		args  []string
		want  string
	}{
		{"openai:", nil, "--agent"},
		{"openai:m", []string{"--api-key-env", "TB_MODEL_KEY_UNSET"}, "TB_MODEL_KEY_UNSET"},
		{"openai:m", []string{"--base-url", "ftp://x"}, "base_url"},
	} {
		f := parse(bad.args...)
		f.agent = bad.agent
		_, err := f.taskRequest("/nonexistent/task")
		var ue *core.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s %v: %v, want a usage error naming %s", bad.agent, bad.args, err, bad.want)
		}
	}
}

// TestPrintModelAgentResult: the summary says how a model agent stopped.
func TestPrintModelAgentResult(t *testing.T) {
	var b strings.Builder
	printTaskResult(&b, "r1", &runapi.TaskResult{Task: "t", Agent: "openai:m", AgentStopReason: "turn_limit", AgentTurns: 30,
		AgentTokens: &runapi.TokenCounts{Total: 1234}, AgentError: "no finish within 30 model calls"})
	if !strings.Contains(b.String(), "model agent: turn_limit after 30 turns, 1234 tokens (no finish within 30 model calls)\n") {
		t.Errorf("summary:\n%s", b.String())
	}
	b.Reset()
	printTaskResult(&b, "r1", &runapi.TaskResult{Task: "t", Agent: "oracle"})
	if strings.Contains(b.String(), "model agent") {
		t.Errorf("oracle summary:\n%s", b.String())
	}
}
