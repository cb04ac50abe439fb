package daemon

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/runapi"
)

// TestCancelledTaskRunIsCancelled: DELETE of a task run whose agent runs
// kills the agent's container and records the run as cancelled by the
// time DELETE answers (Cancel waits about 3 s at most), not as failed.
func TestCancelledTaskRunIsCancelled(t *testing.T) {
	d, dir := startTaskDaemon(t, Config{})
	marker := treeMarker()
	ctx := context.Background()
	run, err := d.client.Submit(ctx, &runapi.RunRequest{Task: &runapi.TaskRequest{
		Dir: dir, PolicySource: "unconstrained", Agent: "cmd:sleep " + marker + " & sleep " + marker,
	}})
	if err != nil {
		t.Fatal(err)
	}
	waitTreeSize(t, marker, 2, time.Now().Add(3*time.Minute)) // the image may be built first
	start := time.Now()
	got, err := d.client.Cancel(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("DELETE answered after %v: %s %q", time.Since(start), got.State, got.Error)
	if got.State != runapi.StateCancelled {
		t.Fatalf("cancelled task run: %s %q", got.State, got.Error)
	}
	waitTreeGone(t, marker, time.Second)

	// Cancelled at any step of its setup (image, rootfs, container start,
	// trace), a task run is cancelled too, as promptly.
	for delay := time.Duration(0); delay <= 800*time.Millisecond; delay += 100 * time.Millisecond {
		run, err := d.client.Submit(ctx, &runapi.RunRequest{Task: &runapi.TaskRequest{Dir: dir, PolicySource: "spec", Agent: "oracle"}})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(delay)
		got, err := d.client.Cancel(ctx, run.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.State != runapi.StateCancelled && got.State != runapi.StateSucceeded { // the oracle may be done already
			t.Errorf("cancelled %v after submitting: %s %q", delay, got.State, got.Error)
		}
	}
}

// TestTaskAgentOutputIsCapped: a task run's agent output stops at the
// cap with the marker, and the result counts what was dropped.
func TestTaskAgentOutputIsCapped(t *testing.T) {
	d, dir := startTaskDaemon(t, Config{MaxOutputBytes: 1000})
	run := submitAndWait(t, d.client, &runapi.RunRequest{Task: &runapi.TaskRequest{
		Dir: dir, PolicySource: "unconstrained", Agent: "cmd:head -c 5000 /dev/zero | tr '\\0' x",
	}})
	if run.State != runapi.StateSucceeded || run.TaskResult == nil || run.TaskResult.AgentStdoutDroppedBytes != 4000 {
		t.Fatalf("task run: %s %q, result %+v", run.State, run.Error, run.TaskResult)
	}
	want := strings.Repeat("x", 1000) + "\n[authbench: output truncated after 1000 bytes; 4000 bytes dropped]\n"
	if got := readLog(t, d.client, run.ID, "agent-stdout"); got != want {
		t.Fatalf("agent stdout (%d bytes) ends %q", len(got), got[max(0, len(got)-80):])
	}
}
