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

// TestTaskRunRequestsFlags: --requests and its bounds go into the daemon
// request; an unknown decider, the ask decider (exec only), bounds out of
// range and bounds without a decider are usage errors (exit 2).
func TestTaskRunRequestsFlags(t *testing.T) {
	t.Setenv("TB_MODEL_KEY", "sk-from-env")
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	f := taskRunFlags{specPolicy: true, semantics: "published", agent: "openai:m", requests: requestFlags{decider: "spec", max: 3, timeoutS: 5},
		models: modelFlags{model: agent.AddFlags(fs)}}
	if err := fs.Parse([]string{"--base-url", "http://127.0.0.1:9/v1", "--api-key-env", "TB_MODEL_KEY"}); err != nil {
		t.Fatal(err)
	}
	req, err := f.taskRequest("/nonexistent/task")
	if err != nil {
		t.Fatal(err)
	}
	if tr := req.Task; tr.Requests != "spec" || tr.MaxRequests != 3 || tr.RequestTimeoutS != 5 {
		t.Errorf("request %+v", tr)
	}
	for _, c := range []struct {
		f    requestFlags
		want string
	}{
		{requestFlags{decider: "maybe"}, "unknown decider"},
		{requestFlags{decider: "ask"}, "task runs do not take it"},
		{requestFlags{decider: "model:"}, "want model:MODEL"},
		{requestFlags{decider: "deny", max: 1001}, "--max-requests"},
		{requestFlags{decider: "deny", timeoutS: -1}, "--request-timeout"},
		{requestFlags{max: 2}, "need --requests"},
	} {
		f.agent = "openai:m"
		f.requests = c.f
		_, err := f.taskRequest("/nonexistent/task")
		var ue *core.UsageError
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &ue) {
			t.Errorf("%+v: %v (want a usage error with %q)", c.f, err, c.want)
		}
	}
	f.agent, f.requests = "oracle", requestFlags{decider: "spec"}
	if _, err := f.taskRequest("/nonexistent/task"); err == nil || !strings.Contains(err.Error(), "cannot make permission requests") {
		t.Errorf("--requests with the oracle: %v", err)
	}
}

// TestPrintRequests: each request is a line, the agent's texts escaped
// for the terminal.
func TestPrintRequests(t *testing.T) {
	var b strings.Builder
	printRequests(&b, &runapi.TaskResult{})
	if b.Len() != 0 {
		t.Errorf("a run without requests printed %q", b.String())
	}
	printRequests(&b, &runapi.TaskResult{Requests: "spec", PermissionRequestsOverLimit: 2, PermissionRequests: []runapi.PermissionRequest{
		{Decision: runapi.RequestGranted, Access: "read", Path: "/data/in.txt", Why: "granted", Used: true},
		{Decision: runapi.RequestInvalid, Access: "read\x1b[2J", Path: "x", Why: "invalid request: \x1b]0;pwned\x07"},
	}})
	out := b.String()
	if !strings.Contains(out, "permission requests (spec): 2, 2 more over the limit") || !strings.Contains(out, "/data/in.txt: granted, used") || strings.ContainsRune(out, 0x1b) {
		t.Errorf("%q", out)
	}
}
