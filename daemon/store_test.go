package daemon

import (
	"fmt"
	"testing"

	"github.com/authbench/authbench/runapi"
)

func TestSyncedEnd(t *testing.T) {
	task := runapi.RunRequest{Task: &runapi.TaskRequest{}}
	gen := runapi.RunRequest{Generate: &runapi.GenerateRequest{}}
	build := runapi.RunRequest{Build: &runapi.BuildRequest{}}
	cmd := runapi.RunRequest{Exec: &runapi.ExecRequest{Command: []string{"true"}}}
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

// TestRememberEndKeepsTheLastRuns checks that a daemon keeps the last
// recentEnded final records in memory, oldest out first, and a OneShot
// manager every one.
func TestRememberEndKeepsTheLastRuns(t *testing.T) {
	m := &Manager{ended: map[string]*runapi.Run{}}
	for i := 0; i < recentEnded+3; i++ {
		m.rememberEnd(&runapi.Run{ID: fmt.Sprint("run-", i), State: runapi.StateSucceeded})
	}
	if len(m.ended) != recentEnded || len(m.endedOrder) != recentEnded {
		t.Fatalf("kept %d records (%d in order), want %d", len(m.ended), len(m.endedOrder), recentEnded)
	}
	for i := 0; i < recentEnded+3; i++ {
		r := m.endedRun(fmt.Sprint("run-", i))
		if kept := i >= 3; (r != nil) != kept {
			t.Errorf("run-%d kept = %v, want %v", i, r != nil, kept)
		}
	}
	one := &Manager{ended: map[string]*runapi.Run{}, cfg: Config{OneShot: true}}
	for i := 0; i < recentEnded+3; i++ {
		one.rememberEnd(&runapi.Run{ID: fmt.Sprint("run-", i)})
	}
	if len(one.ended) != recentEnded+3 {
		t.Fatalf("a OneShot manager kept %d records, want all %d", len(one.ended), recentEnded+3)
	}
}
