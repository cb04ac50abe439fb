package trial

import (
	"testing"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/runapi"
)

// TestFromTaskResultErrorHasNoClass: a task run that failed — before its
// agent ran, or after (its time ran out before the verifiers) — gives a
// row with its error and no failure class, though its utility is false
// and it has denials (which alone would make it a failure).
func TestFromTaskResultErrorHasNoClass(t *testing.T) {
	for _, res := range []*runapi.TaskResult{
		{Error: "build task t: COPY app.py: no such file", ErrorKind: runapi.ErrorBuild, AgentDidNotRun: true},
		{Error: "task run ended before verification", ErrorKind: runapi.ErrorAgentTimeout, ExitCode: 137, TimedOut: true,
			Denials: []audit.Denial{{Op: "openat", Axis: "read", Path: "/etc/x", Errno: "EACCES"}}},
	} {
		r := &Record{Identity: Identity{Task: "t", Source: runapi.SourceSpec, Agent: runapi.AgentOracle}}
		FromTaskResult(r, res, Policy{Source: runapi.SourceSpec, Valid: true}, nil)
		if len(r.Classes) != 0 || r.Primary != "" || r.Error != res.Error || r.ErrorKind != res.ErrorKind {
			t.Errorf("%s: row classes %q primary %q error %q", res.ErrorKind, r.Classes, r.Primary, r.Error)
		}
		if r.AgentDidNotRun != res.AgentDidNotRun {
			t.Errorf("%s: AgentDidNotRun %v, want %v", res.ErrorKind, r.AgentDidNotRun, res.AgentDidNotRun)
		}
	}
}
