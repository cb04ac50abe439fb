package daemon

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/authbench/authbench/runapi"
)

// TestManagerWithoutWorkRunsCommandsOnly: a Manager without Config.Work
// (the thin front's, embedded for exec) refuses a task run, a
// generation and a build as bad requests naming the kind, before
// anything starts, and records nothing.
func TestManagerWithoutWorkRunsCommandsOnly(t *testing.T) {
	dir, err := filepath.Abs(fixtureTask)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewManager(Config{StateDir: t.TempDir(), Self: testBinary, OneShot: true})
	if err != nil {
		t.Fatal(err)
	}
	for field, req := range map[string]*runapi.RunRequest{
		"task":     {Task: &runapi.TaskRequest{Dir: dir, Agent: runapi.AgentOracle, PolicySource: runapi.SourceSpec}},
		"generate": {Generate: &runapi.GenerateRequest{Dir: dir, Generator: "heuristic"}},
		"build":    {Build: &runapi.BuildRequest{Dir: dir}},
	} {
		_, err := m.Submit(req, Peer{UID: 0, PID: 1})
		var re *RequestError
		if !errors.As(err, &re) || re.Field != field || re.Msg != errNoTaskWork.Error() {
			t.Errorf("%s request: got %v, want a bad request naming %q: %v", field, err, field, errNoTaskWork)
		}
	}
	if runs, _ := m.List(); len(runs) != 0 {
		t.Errorf("refused requests were recorded: %v", runs)
	}
}
