package daemon

import (
	"testing"

	"github.com/authbench/authbench/runapi"
)

func TestSyncedEnd(t *testing.T) {
	task := runapi.RunRequest{Task: &runapi.TaskRequest{}}
	gen := runapi.RunRequest{Generate: &runapi.GenerateRequest{}}
	build := runapi.RunRequest{Build: &runapi.BuildRequest{}}
	cmd := runapi.RunRequest{Command: []string{"true"}}
	for _, tc := range []struct {
		name  string
		state runapi.State
		req   runapi.RunRequest
		want  bool
	}{
		{"task ended", runapi.StateSucceeded, task, true},
		{"task aborted", runapi.StateAborted, task, true},
		{"generation ended", runapi.StateFailed, gen, true},
		{"build ended", runapi.StateSucceeded, build, true},
		{"task running", runapi.StateRunning, task, false},
		{"task queued", runapi.StateQueued, task, false},
		{"command ended", runapi.StateSucceeded, cmd, false},
		{"command failed", runapi.StateFailed, cmd, false},
		{"command running", runapi.StateRunning, cmd, false},
	} {
		if got := syncedEnd(&runapi.Run{State: tc.state, Request: tc.req}); got != tc.want {
			t.Errorf("%s: syncedEnd = %v, want %v", tc.name, got, tc.want)
		}
	}
}
