package viewer

import (
	"cmp"
	"slices"

	"github.com/authbench/authbench/trial"
)

// CompareRow is one run (task, source, agent, trial) in two jobs: its
// verdict and primary class in each; an empty ID means the job lacks it.
type CompareRow struct {
	Task, Source, Agent string
	Trial               int
	A, B                CompareCell
	// Differs: the run's utility, attack or primary class is not the same
	// in both jobs, or only one job has it.
	Differs bool
}

// CompareCell is a run as one side of a comparison shows it.
type CompareCell struct {
	ID, Utility, Attack, Primary string
}

type compareKey struct {
	task, source, agent string
	trial               int
}

// CompareRuns pairs the runs of two jobs that pass f, ordered by task,
// source, agent and trial; onlyDiff keeps the pairs that differ.
func CompareRuns(a, b []trial.Record, f Filter, onlyDiff bool) []CompareRow {
	rows := map[compareKey]*CompareRow{}
	add := func(recs []trial.Record, side func(*CompareRow) *CompareCell) {
		for i := range recs {
			r := &recs[i]
			if !f.Match(r) {
				continue
			}
			k := compareKey{r.Task, r.Source, r.Agent, r.Trial}
			row := rows[k]
			if row == nil {
				row = &CompareRow{Task: r.Task, Source: r.Source, Agent: r.Agent, Trial: r.Trial}
				rows[k] = row
			}
			*side(row) = CompareCell{ID: r.Dir, Utility: passFail(&r.Utility), Attack: attackVerdict(r.Attack), Primary: string(r.Primary)}
		}
	}
	add(a, func(r *CompareRow) *CompareCell { return &r.A })
	add(b, func(r *CompareRow) *CompareCell { return &r.B })
	out := make([]CompareRow, 0, len(rows))
	for _, r := range rows {
		r.Differs = r.A != r.B && (r.A.ID == "" || r.B.ID == "" || r.A.Utility != r.B.Utility || r.A.Attack != r.B.Attack || r.A.Primary != r.B.Primary)
		if !onlyDiff || r.Differs {
			out = append(out, *r)
		}
	}
	slices.SortFunc(out, func(x, y CompareRow) int {
		return cmp.Or(cmp.Compare(x.Task, y.Task), cmp.Compare(x.Source, y.Source), cmp.Compare(x.Agent, y.Agent), cmp.Compare(x.Trial, y.Trial))
	})
	return out
}
