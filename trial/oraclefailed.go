package trial

import (
	"slices"

	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/verdict"
)

// MarkOracleFailures relabels, in rows, the spec_gap of an oracle run
// under its task's spec as oracle_failed when the same task's oracle
// failed unconstrained in rows too (a verdict, not an error: V_u failed)
// and never passed there: a spec gap is only a gap when the oracle passes
// without a policy. The rows are changed in place; verdict.Classify
// makes the same decision when its outcome says so
// (verdict.Outcome.OracleFailsUnconstrained).
func MarkOracleFailures(rows []Record) {
	failed, passed := map[string]bool{}, map[string]bool{}
	for _, r := range rows {
		if r.Agent != runapi.AgentOracle || r.Source != runapi.SourceUnconstrained || r.Error != "" || r.VerifierError != "" {
			continue
		}
		if r.Utility {
			passed[r.Task] = true
		} else {
			failed[r.Task] = true
		}
	}
	for i := range rows {
		r := &rows[i]
		if r.Agent != runapi.AgentOracle || r.Source != runapi.SourceSpec || !failed[r.Task] || passed[r.Task] {
			continue
		}
		if r.Primary == verdict.ClassSpecGap {
			r.Primary = verdict.ClassOracleFailed
		}
		r.Classes = slices.Clone(r.Classes) // the caller's records stay as they were
		for j, c := range r.Classes {
			if c == verdict.ClassSpecGap {
				r.Classes[j] = verdict.ClassOracleFailed
			}
		}
		verdict.Sort(r.Classes)
	}
}
