package bench

import (
	"strings"
	"testing"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
)

// TestTraceSourceKeepsNetwork: the trace source's policy document sent to
// the daemon carries the recorded network entries (it once sent the file
// axes only, so every network task failed network_denied under its own
// recorded spec).
func TestTraceSourceKeepsNetwork(t *testing.T) {
	trace := &policy.Policy{Network: []policy.HostPattern{policy.MustHostPattern("stock:8080")}}
	rp := Source{Name: runapi.SourceTrace}.policyFor(&tasks.Task{Name: "x"}, trace)
	if !rp.valid || !strings.Contains(string(rp.doc), `"network":["stock:8080"]`) {
		t.Fatalf("trace policy document %s (valid %v)", rp.doc, rp.valid)
	}
}
