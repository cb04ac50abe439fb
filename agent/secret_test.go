package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/authbench/authbench/agent"
	"github.com/authbench/authbench/agent/agenttest"
	"github.com/authbench/authbench/agent/modelconfig"
)

const key = "sk-test-SECRET"

// jsonLogger logs everything, as JSON, into buf.
func jsonLogger(buf *bytes.Buffer) *zap.Logger {
	enc := zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig())
	return zap.New(zapcore.NewCore(enc, zapcore.AddSync(buf), zapcore.DebugLevel))
}

func TestAPIKeyNeverLeaks(t *testing.T) {
	modes(t, func(t *testing.T, stream bool) {
		var logs bytes.Buffer
		log := jsonLogger(&logs)
		srv := agenttest.New(t,
			agenttest.Reply{ToolCalls: []agenttest.Call{{ID: "c1", Name: "echo", Arguments: `{"text":"x"}`}}},
			agenttest.Reply{ToolCalls: []agenttest.Call{{ID: "c2", Name: "finish", Arguments: `{"summary":"s"}`}}},
			// a second loop: the endpoint refuses the key and repeats it
			agenttest.Reply{Status: 401, Body: `{"error":{"message":"Incorrect API key provided: ` + key + `","type":"invalid_request_error"}}`},
		)
		cfg := config(srv.URL, stream)
		var calls []string
		l := agent.Loop{Config: cfg, Tools: []agent.Tool{echoTool(&calls), finishTool()}, Log: log}
		out := l.Run(context.Background(), "sys", "go")
		if out.Reason != modelconfig.StopFinished {
			t.Fatalf("reason %s err %v", out.Reason, out.Err)
		}
		bad := l.Run(context.Background(), "sys", "go")
		if bad.Reason != modelconfig.StopModelError || !strings.Contains(bad.Err.Error(), "Incorrect API key provided: [redacted]") {
			t.Fatalf("reason %s err %v", bad.Reason, bad.Err)
		}
		for _, r := range srv.Requests() {
			if r.Authorization != "Bearer "+key {
				t.Errorf("server saw Authorization %q", r.Authorization)
			}
		}

		log.Info("config", zap.Any("config", cfg), zap.Any("key", cfg.APIKey), zap.Stringer("key2", cfg.APIKey), zap.Object("cfg", cfg))
		var stored []string
		for _, tr := range []*agent.Trajectory{out.Trajectory, bad.Trajectory} {
			b, err := json.Marshal(tr)
			if err != nil {
				t.Fatal(err)
			}
			stored = append(stored, string(b))
		}
		red, _ := json.Marshal(cfg.Redacted())
		stored = append(stored, string(red), logs.String(), bad.Err.Error(),
			fmt.Sprintf("%v %+v %#v %s %q %x %v", cfg, cfg, cfg, cfg.APIKey, cfg.APIKey, cfg.APIKey, &cfg))
		for i, s := range stored {
			if strings.Contains(s, "SECRET") {
				t.Errorf("stored text %d contains the key: %s", i, s)
			}
		}
		if !strings.Contains(logs.String(), `"key":{"secret":"[redacted]"}`) || !strings.Contains(logs.String(), `"key2":"[redacted]"`) {
			t.Errorf("zap did not print the key redacted: %s", logs.String())
		}
		// a request to the daemon carries the key
		full, _ := json.Marshal(cfg)
		var back modelconfig.Config
		if err := json.Unmarshal(full, &back); err != nil || back.APIKey.Reveal() != key {
			t.Errorf("config JSON round trip lost the key: %s, %v", full, err)
		}
	})
}

// The client sends the key of its config only: never a key of the
// process's environment (the daemon's), whatever endpoint the caller chose.
func TestNoAmbientKey(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-daemon-AMBIENT")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	t.Setenv("OPENAI_ADMIN_KEY", "sk-admin-AMBIENT")
	t.Setenv("OPENAI_ORG_ID", "org-AMBIENT")
	t.Setenv("OPENAI_PROJECT_ID", "proj-AMBIENT")
	t.Setenv("OPENAI_CUSTOM_HEADERS", "X-Proxy-Auth: AMBIENT")
	srv := agenttest.New(t, agenttest.Reply{Content: "{}"})
	cfg := modelconfig.Config{BaseURL: srv.URL, Model: "m"}
	out := (&agent.Loop{Config: cfg, Final: jsonFinal}).Run(context.Background(), "sys", "go")
	if out.Reason != modelconfig.StopFinished {
		t.Fatalf("reason %s err %v", out.Reason, out.Err)
	}
	for name, vs := range srv.Requests()[0].Header {
		if name == "Authorization" || strings.Contains(strings.Join(vs, " "), "AMBIENT") {
			t.Errorf("sent %s: %q from the environment", name, vs)
		}
	}
}
