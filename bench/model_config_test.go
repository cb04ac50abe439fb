package bench

import (
	"strings"
	"testing"

	"github.com/authbench/authbench/agent/modelconfig"
)

// TestModelAgentNeedsItsModel: an openai:MODEL agent needs a model
// configuration, and only it takes one.
func TestModelAgentNeedsItsModel(t *testing.T) {
	m := &modelconfig.Config{Model: "m"}
	for _, c := range []struct {
		agent string
		model *modelconfig.Config
		ok    bool
	}{
		{"openai:m", m, true}, {"openai:m", nil, false}, {"oracle", m, false}, {"oracle", nil, true},
	} {
		cfg := Config{TasksDir: "/tasks", Sources: []Source{{Name: "spec"}}, Agent: c.agent, Model: c.model, Trials: 1, Out: t.TempDir()}
		err := cfg.check()
		if (err == nil) != c.ok || err != nil && !strings.Contains(err.Error(), "openai:MODEL") {
			t.Errorf("agent %s, model %v: %v", c.agent, c.model != nil, err)
		}
	}
}
