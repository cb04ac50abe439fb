package trial

import (
	"slices"
	"testing"

	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/verdict"
)

// TestOracleFailedIsNoSpecGap: an oracle that fails under its spec on a
// denial is a spec_gap only while it passes (or is not known to fail)
// unconstrained; failing there too its bench rows are oracle_failed
// (verdict.Classify decides the same from its outcome), and the caller's
// rows are left as they were.
func TestOracleFailedIsNoSpecGap(t *testing.T) {
	row := func(task, source string, utility bool, primary verdict.Class, classes ...verdict.Class) Record {
		r := Record{Identity: Identity{Task: task, Source: source, Agent: runapi.AgentOracle}, Verdicts: Verdicts{Utility: utility}}
		r.Primary, r.Classes = primary, classes
		return r
	}
	gap := func(task string) Record {
		return row(task, runapi.SourceSpec, false, verdict.ClassSpecGap, verdict.ClassReadInsufficient, verdict.ClassSpecGap)
	}
	errored := row("errored", runapi.SourceUnconstrained, false, "")
	errored.Error = "image did not build"
	rows := []Record{
		row("nginx", runapi.SourceUnconstrained, false, verdict.ClassNotPermissionRelated, verdict.ClassNotPermissionRelated), gap("nginx"),
		row("fine", runapi.SourceUnconstrained, true, ""), gap("fine"),
		errored, gap("errored"),
		gap("alone"),
	}
	before := slices.Clone(rows[1].Classes)
	runs := slices.Clone(rows)
	MarkOracleFailures(runs)
	want := map[string]verdict.Class{"nginx": verdict.ClassOracleFailed, "fine": verdict.ClassSpecGap, "errored": verdict.ClassSpecGap, "alone": verdict.ClassSpecGap}
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
