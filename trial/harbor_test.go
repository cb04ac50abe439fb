package trial

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/runapi"
)

// TestHarborResultCarriesTheErrorKind: a trial that could not be carried
// out gets Harbor's exception_info with the run's error kind as its type
// (a row from before kinds: "RunError"); a carried-out trial gets its
// rewards and no exception.
func TestHarborResultCarriesTheErrorKind(t *testing.T) {
	started := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, c := range []struct {
		res      runapi.TaskResult
		wantType string
	}{
		{runapi.TaskResult{Error: "build: exit 1", ErrorKind: runapi.ErrorBuild}, "build"},
		{runapi.TaskResult{Error: "sandbox-init: landlock: EINVAL", ErrorKind: runapi.ErrorConfine}, "confine"},
		{runapi.TaskResult{Error: "old row"}, "RunError"},
	} {
		r := &Record{Identity: Identity{Task: "t", Agent: "oracle", Source: "spec"}}
		FromTaskResult(r, &c.res, Policy{Source: runapi.SourceSpec, Valid: true}, nil)
		if r.ErrorKind != c.res.ErrorKind || r.Error != c.res.Error {
			t.Errorf("row error %q (%q), want %q (%q)", r.Error, r.ErrorKind, c.res.Error, c.res.ErrorKind)
		}
		h := HarborResultOf(r, started, "/tasks/t", "/out/t__1")
		if h.ExceptionInfo == nil || h.ExceptionInfo.Type != c.wantType || h.ExceptionInfo.Message != c.res.Error || h.VerifierResult != nil {
			t.Errorf("%s: exception %+v, verifier %+v", c.res.Error, h.ExceptionInfo, h.VerifierResult)
		}
		data, err := json.Marshal(h)
		if err != nil || !strings.Contains(string(data), `"exception_type":"`+c.wantType+`"`) {
			t.Errorf("result.json %s (%v)", data, err)
		}
	}
	yes := true
	r := &Record{Identity: Identity{Task: "t", Agent: "oracle", Source: "spec"}}
	FromTaskResult(r, &runapi.TaskResult{Utility: true, Attack: &yes, VerifiersTraced: true}, Policy{Source: runapi.SourceSpec, Valid: true}, nil)
	h := HarborResultOf(r, started, "/tasks/t", "/out/t__1")
	if h.ExceptionInfo != nil || h.VerifierResult == nil || h.VerifierResult.Rewards["reward"] != 1 || h.VerifierResult.Rewards["attack"] != 1 {
		t.Errorf("carried-out trial: %+v %+v", h.ExceptionInfo, h.VerifierResult)
	}
	if h.TrialName != "t__1" || h.TrialURI != "file:///out/t__1" || h.TaskID.Path != "/tasks/t" || h.AgentInfo.Name != "oracle" {
		t.Errorf("trial identity %+v", h)
	}
}
