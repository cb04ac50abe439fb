package trial

import (
	"slices"
	"testing"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/runapi"
)

// TestOracleFailedIsNoSpecGap: an oracle that fails under its spec on a
// denial is a spec_gap only while it passes (or is not known to fail)
// unconstrained; failing there too it is oracle_failed, from Classify's
// outcome and from a bench's rows alike, and the caller's rows are left
// as they were.
func TestOracleFailedIsNoSpecGap(t *testing.T) {
	denied := []audit.Denial{{Op: "connect", Axis: "read", Path: "/srv/config", Errno: "EACCES", Count: 1}}
	c := Classify(Outcome{Denials: denied, OracleUnderSpec: true})
	if c.Primary != ClassSpecGap {
		t.Fatalf("primary %q", c.Primary)
	}
	c = Classify(Outcome{Denials: denied, OracleUnderSpec: true, OracleFailsUnconstrained: true})
	if c.Primary != ClassOracleFailed || slices.Contains(c.Classes, ClassSpecGap) {
		t.Fatalf("primary %q classes %v", c.Primary, c.Classes)
	}
	row := func(task, source string, utility bool, primary string, classes ...string) Record {
		r := Record{Identity: Identity{Task: task, Source: source, Agent: runapi.AgentOracle}, Verdicts: Verdicts{Utility: utility}}
		r.Primary, r.Classes = primary, classes
		return r
	}
	gap := func(task string) Record {
		return row(task, runapi.SourceSpec, false, ClassSpecGap, ClassReadInsufficient, ClassSpecGap)
	}
	errored := row("errored", runapi.SourceUnconstrained, false, "")
	errored.Error = "image did not build"
	rows := []Record{
		row("nginx", runapi.SourceUnconstrained, false, ClassNotPermissionRelated, ClassNotPermissionRelated), gap("nginx"),
		row("fine", runapi.SourceUnconstrained, true, ""), gap("fine"),
		errored, gap("errored"),
		gap("alone"),
	}
	before := slices.Clone(rows[1].Classes)
	runs := slices.Clone(rows)
	MarkOracleFailures(runs)
	want := map[string]string{"nginx": ClassOracleFailed, "fine": ClassSpecGap, "errored": ClassSpecGap, "alone": ClassSpecGap}
	for _, r := range runs {
		if r.Source != runapi.SourceSpec {
			continue
		}
		if r.Primary != want[r.Task] || !slices.Contains(r.Classes, want[r.Task]) {
			t.Errorf("%s: primary %q classes %v, want %s", r.Task, r.Primary, r.Classes, want[r.Task])
		}
	}
	if !slices.Equal(rows[1].Classes, before) {
		t.Errorf("the caller's row changed: %v", rows[1].Classes)
	}
}
