package runapi

import (
	"testing"

	"github.com/authbench/authbench/audit"
)

// TestRunReadsItsResult: a task run's or a generation's counts, denials
// and enforcement are read from the result the run references; a
// command's (or a run with no result) from the run itself.
func TestRunReadsItsResult(t *testing.T) {
	d := func(p string) []audit.Denial { return []audit.Denial{{Path: p}} }
	for _, c := range []struct {
		name             string
		run              Run
		events, lost     uint64
		denied           string
		abi              int
		unenforcedLength int
	}{
		{"command", Run{Events: 3, LostEvents: 1, Denials: d("/cmd"), LandlockABI: 6, UnenforcedRights: []string{"x"}}, 3, 1, "/cmd", 6, 1},
		{"task run", Run{Events: 99, Denials: d("/stale"), LandlockABI: 1,
			TaskResult: &TaskResult{Events: 7, LostEvents: 2, Denials: d("/task"), LandlockABI: 7, UnenforcedRights: []string{"a", "b"}}}, 7, 2, "/task", 7, 2},
		{"generation", Run{Events: 99, LandlockABI: 5,
			GenerateResult: &GenerationRecord{Events: 4, LostEvents: 0, Denials: d("/gen")}}, 4, 0, "/gen", 5, 0},
		{"task run its daemon died in", Run{Events: 12, TraceIncomplete: true}, 12, 0, "", 0, 0},
	} {
		events, lost := c.run.TraceCounts()
		if events != c.events || lost != c.lost {
			t.Errorf("%s: TraceCounts = %d, %d; want %d, %d", c.name, events, lost, c.events, c.lost)
		}
		denied := ""
		if ds := c.run.DeniedAccesses(); len(ds) > 0 {
			denied = ds[0].Path
		}
		if denied != c.denied {
			t.Errorf("%s: DeniedAccesses = %q, want %q", c.name, denied, c.denied)
		}
		abi, unenforced := c.run.Enforcement()
		if abi != c.abi || len(unenforced) != c.unenforcedLength {
			t.Errorf("%s: Enforcement = %d, %v; want %d, %d rights", c.name, abi, unenforced, c.abi, c.unenforcedLength)
		}
	}
}
