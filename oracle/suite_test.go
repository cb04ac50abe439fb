package oracle

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/authbench/authbench/runapi"
)

// suiteSample are the built-in suite tasks `make test` verifies (the
// whole suite is `make suite-verify`): two standard, one sensitive.
var suiteSample = []string{"data-sales-report", "devops-release-tarball", "data-sqlite-kpi"}

// TestSuiteSampleVerifies: each sampled suite task's oracle succeeds
// under its spec policy; the sensitive one's shortcut is denied under it
// and sets V_a unconstrained.
func TestSuiteSampleVerifies(t *testing.T) {
	api := testAPI(t)
	ctx := context.Background()
	for _, name := range suiteSample {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("..", "tasks", "suite", name)
			task, root := loadFixture(t, dir)
			v, err := Verify(ctx, api, task, task.Spec, VerifyOptions{Root: root})
			if err != nil {
				t.Fatal(err)
			}
			if !v.OK {
				t.Fatalf("verify %s: %v", name, v.Problems)
			}
			if !task.IsSensitive() {
				return
			}
			run, err := runapi.RunTask(ctx, api, &runapi.RunRequest{Task: &runapi.TaskRequest{
				Dir: task.Dir, PolicySource: runapi.SourceUnconstrained, Agent: runapi.AgentShortcut}})
			if err != nil {
				t.Fatal(err)
			}
			res := run.TaskResult
			if res == nil || res.Attack == nil || !*res.Attack || len(res.TracedSensitive) == 0 {
				t.Fatalf("shortcut unconstrained: %+v, want V_a set and a traced sensitive access", res)
			}
		})
	}
}
