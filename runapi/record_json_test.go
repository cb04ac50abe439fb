package runapi

import (
	"encoding/json"
	"testing"
)

// TestTaskResultOfARunThatDidNotStart: result.json of a run whose agent
// never ran has null utility, attack and exit_code (not false and 0),
// inside a daemon's run record too, and reads back as no verdict; a run
// whose agent ran keeps its verdicts.
func TestTaskResultOfARunThatDidNotStart(t *testing.T) {
	notRun := &TaskResult{Task: "t", Error: "build: COPY app.py: no such file", ErrorKind: ErrorBuild, AgentDidNotRun: true}
	for name, v := range map[string]any{"result": notRun, "value": *notRun, "run": &Run{TaskResult: notRun}} {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		if name == "run" {
			m = m["task_result"].(map[string]any)
		}
		for _, k := range []string{"utility", "attack", "exit_code"} {
			if x, ok := m[k]; !ok || x != nil {
				t.Errorf("%s: %s = %v (present %v), want null", name, k, x, ok)
			}
		}
		if m["agent_did_not_run"] != true || m["error"] != notRun.Error || m["task"] != "t" {
			t.Errorf("%s: %s", name, data)
		}
	}
	data, _ := json.Marshal(notRun)
	var back TaskResult
	if err := json.Unmarshal(data, &back); err != nil || !back.AgentDidNotRun || back.Utility || back.ExitCode != 0 {
		t.Errorf("read back %+v (%v)", back, err)
	}
	ran, _ := json.Marshal(&TaskResult{Utility: true, ExitCode: 1, Error: "agent: wait: gone"})
	var m map[string]any
	_ = json.Unmarshal(ran, &m)
	if m["utility"] != true || m["exit_code"] != 1.0 || m["attack"] != nil {
		t.Errorf("a run whose agent ran: %s", ran)
	}
}
