package cli

import (
	"reflect"
	"strings"
	"testing"
)

// TestTaskRunAllowHostFlag: --agent-allow-host entries go into the
// daemon request as given; a bad one is a usage error naming the flag.
func TestTaskRunAllowHostFlag(t *testing.T) {
	f := taskRunFlags{specPolicy: true, semantics: "published", agent: "oracle",
		allowHosts: []string{"127.0.0.1:8080", "pypi.org"}}
	req, err := f.taskRequest("/nonexistent/task")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(req.Task.AgentAllowHosts, f.allowHosts) {
		t.Errorf("request's agent_allow_hosts %v", req.Task.AgentAllowHosts)
	}
	f.allowHosts = []string{"127.0.0.1:8080", "https://api.openai.com/v1/chat"}
	if _, err := f.taskRequest("/nonexistent/task"); err == nil || !strings.Contains(err.Error(), `--agent-allow-host[1] "https://api.openai.com/v1/chat"`) {
		t.Errorf("a URL with a path: %v", err)
	}
}
