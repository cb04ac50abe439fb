package sandbox

import (
	"io"
	"strings"
	"testing"
	"time"
)

// TestReportExitKeepsTheTree: with ReportExit the reaper reports the
// command's status on the status pipe as soon as the command ends, while
// what it left running runs on (the reaper is still there), and exits
// with the command's status once the rest of the tree has ended.
func TestReportExitKeepsTheTree(t *testing.T) {
	spec := Launch{Path: "/bin/sh", Args: []string{"sh", "-c", "sleep 2 & exit 3"}, WaitTree: true, ReportExit: true}
	c, err := Start(testBinary(t), spec, strings.NewReader(""), io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := c.Release(); err != nil {
		t.Fatal(err)
	}
	select {
	case status, ok := <-c.gate.CommandEnded():
		if !ok || status != 3 {
			t.Fatalf("command ended: %d (reported %v), want 3", status, ok)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the command's end was never reported")
	}
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Fatalf("the end was reported after %v: with the tree, not the command", d)
	}
	if processGone(c.Pid()) {
		t.Fatal("the reaper left with the command: what it left running is gone")
	}
	status, err := c.Wait()
	if err != nil || status != 3 || time.Since(start) < 1500*time.Millisecond {
		t.Fatalf("reaper: status %d, err %v after %v", status, err, time.Since(start))
	}
	c.gate.CloseStatus()
}

// TestReportExitNeedsWaitTree: ReportExit alone is refused.
func TestReportExitNeedsWaitTree(t *testing.T) {
	if _, err := checkSpec(&Launch{Path: "/bin/true", ReportExit: true}); err == nil || !strings.Contains(err.Error(), "wait_tree") {
		t.Fatalf("err %v", err)
	}
}
