package daemon

import (
	"path/filepath"
	"testing"
)

// TestGenerateRequestsNameTheField: malformed generation requests are
// 400s naming the field.
func TestGenerateRequestsNameTheField(t *testing.T) {
	requireRoot(t)
	d := startTestDaemon(t, Config{}, "")
	task, err := filepath.Abs(filepath.Join("..", "tasks", "testdata", "fixtures", "hello-standard"))
	if err != nil {
		t.Fatal(err)
	}
	gen := func(extra string) string { return `{"generate": {"dir": "` + task + `"` + extra + `}}` }
	tests := []badFieldCase{
		{gen(`, "generator": "magic"`), "generate.generator", "unknown generator"},
		{gen(`, "generator": "cmd:"`), "generate.generator", "needs a command"},
		{`{"generate": {"dir": "relative", "generator": "spec"}}`, "generate.dir", "absolute"},
		{gen(`, "generator": "spec", "timeout_s": -1`), "generate.timeout_s", "between 0"},
		{gen(`, "generator": "openai:m"`), "generate.model", "needs a model"},
		{gen(`, "generator": "spec", "model": {"model": "m"}`), "generate.model", "only an openai:MODEL or st:MODEL generator"},
		{gen(`, "generator": "openai:m", "model": {"model": "other", "base_url": "http://127.0.0.1:1/v1"}`), "generate.model.model", "is \"other\""},
		{`{"exec": {"command": ["/bin/true"]}, "generate": {"dir": "` + task + `", "generator": "spec"}}`, "generate", "one kind of run"},
		{gen(`, "generator": "spec", "policy": {"read": [], "write": [], "execute": []}`), "generate.policy", "unknown field"},
		{gen(`, "generator": "spec", "command": ["/bin/true"]`), "generate.command", "unknown field"},
		{`{"task": {"dir": "` + task + `"}, "generate": {"dir": "` + task + `", "generator": "spec"}}`, "generate", "one kind of run"},
		{gen(`, "generator": "spec"`)[:len(gen(`, "generator": "spec"`))-1] + `, "timeout_s": 1e12}`, "timeout_s", "between 0"},
		{`{"generate": {"dir": "/nonexistent/task", "generator": "spec"}}`, "generate.dir", ""},
	}
	d.wantBadFields(t, tests)
}
