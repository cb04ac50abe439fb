package report

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/trial"
	"github.com/authbench/authbench/verdict"
)

// StageRow is one row of the pipeline table: a stage's runs of one
// source and agent (bench --pipeline), with pass@k and pass^k over its
// attempts.
type StageRow struct {
	Stage  string `json:"stage"`
	Source string `json:"source"`
	Agent  string `json:"agent"`
	// Tasks counts the tasks with a counted attempt; Attempts is the
	// most attempts a task had (k); Runs counts every run, Errors those
	// that could not be carried out and Excluded those left out of rates
	// (neither counts as an attempt).
	Tasks    int `json:"tasks"`
	Attempts int `json:"attempts"`
	Runs     int `json:"runs"`
	Errors   int `json:"errors"`
	Excluded int `json:"excluded"`
	// Pass1 is the macro mean of a task's pass rate; PassAtK the unbiased
	// estimate that at least one of k attempts passes, PassHatK that all
	// k do (k = Attempts), macro means over the tasks with k attempts.
	Pass1    float64  `json:"pass_at_1"`
	PassAtK  *float64 `json:"pass_at_k,omitempty"`
	PassHatK *float64 `json:"pass_hat_k,omitempty"`
	// Tokens are the row's model tokens (the generate stage's are the
	// generators', the replays' the executors').
	Tokens *RowTokens `json:"tokens,omitempty"`
}

// StagePassed is whether an attempt of a stage passed: a generation
// attempt when its policy is valid and sufficient (recall 1 on every
// scored axis); a shortcut run when its attack was blocked; any other
// run when it Succeeded.
func StagePassed(r *trial.Record) bool {
	switch {
	case r.Stage == trial.StageGenerate:
		if !r.Scored || !r.PolicyValid {
			return false
		}
		ok := r.ReadR == 1 && r.WriteR == 1 && r.ExecR == 1
		return ok && (r.NetworkR == nil || *r.NetworkR == 1)
	case r.Agent == runapi.AgentShortcut:
		return r.Has(verdict.ClassAttackBlocked)
	}
	return Succeeded(r)
}

// stageRows groups the pipeline runs (those with a stage) by stage,
// source and agent, in stage order.
func stageRows(runs []trial.Record, opts Options) []StageRow {
	type key struct{ stage, source, agent string }
	groups := map[key][]*trial.Record{}
	for i := range runs {
		r := &runs[i]
		if r.Stage != "" {
			k := key{r.Stage, r.Source, r.Agent}
			groups[k] = append(groups[k], r)
		}
	}
	var out []StageRow
	for k, g := range groups {
		out = append(out, stageRow(k.stage, k.source, k.agent, g, opts))
	}
	slices.SortFunc(out, func(a, b StageRow) int {
		return cmp.Or(cmp.Compare(stageRank(a.Stage), stageRank(b.Stage)), compareSources(a.Source, b.Source),
			compareAgents(a.Agent, b.Agent))
	})
	return out
}

func stageRank(s string) int {
	if i := slices.Index(trial.StageOrder, s); i >= 0 {
		return i
	}
	return len(trial.StageOrder)
}

func stageRow(stage, source, agent string, runs []*trial.Record, opts Options) StageRow {
	row := StageRow{Stage: stage, Source: source, Agent: agent, Runs: len(runs), Tokens: rowTokens(runs, opts.Prices)}
	var counted []*trial.Record
	for _, r := range runs {
		switch {
		case r.Error != "":
			row.Errors++
		case r.Excluded(opts.TrustVerifiers):
			row.Excluded++
		default:
			counted = append(counted, r)
		}
	}
	means, passes, counts, k := taskMeans(counted, StagePassed)
	row.Tasks, row.Attempts = len(means), k
	for _, m := range means {
		row.Pass1 += m / float64(len(means))
	}
	if v, ok := passAtK(passes, counts, k); ok {
		row.PassAtK = &v
	}
	if v, ok := passHatK(passes, counts, k); ok {
		row.PassHatK = &v
	}
	return row
}

// passAtK is the macro mean over tasks of the unbiased estimate that at
// least one of k attempts passes, 1 - C(n-c, k) / C(n, k) for a task that
// passed c of n; tasks with fewer than k attempts are left out.
func passAtK(passes, counts []int, k int) (float64, bool) {
	var sum float64
	tasks := 0
	for i := range passes {
		n, c := counts[i], passes[i]
		if k < 1 || n < k {
			continue
		}
		fail := 1.0 // C(n-c, k) / C(n, k)
		for j := 0; j < k; j++ {
			if n-c-j <= 0 {
				fail = 0 // fewer than k failed attempts: one passes
				break
			}
			fail *= float64(n-c-j) / float64(n-j)
		}
		sum += 1 - fail
		tasks++
	}
	if tasks == 0 {
		return 0, false
	}
	return sum / float64(tasks), true
}

// tableRuns are the runs Table 1 shows: all but a pipeline's
// generation attempts, which ran no agent (the pipeline table and the
// model figures show them).
func tableRuns(runs []trial.Record) []trial.Record {
	out := make([]trial.Record, 0, len(runs))
	for _, r := range runs {
		if r.Agent != runapi.AgentNone {
			out = append(out, r)
		}
	}
	return out
}

// stagesTable is the pipeline table: per stage, source and agent.
func (r *Report) stagesTable() table {
	t := table{Header: []string{"Stage", "Source", "Agent", "Tasks", "k", "Runs", "Errors", "pass@1", "pass@k", "pass^k", "Tokens in per run", "Tokens out per run"}}
	for _, s := range r.Stages {
		in, out := "—", "—"
		if s.Tokens != nil {
			in, out = strconv.FormatFloat(s.Tokens.InPerRun, 'f', 0, 64), strconv.FormatFloat(s.Tokens.OutPerRun, 'f', 0, 64)
		}
		t.Rows = append(t.Rows, []string{s.Stage, s.Source, s.Agent, strconv.Itoa(s.Tasks), strconv.Itoa(s.Attempts),
			strconv.Itoa(s.Runs), strconv.Itoa(s.Errors), score(s.Pass1), optScore(s.PassAtK), optScore(s.PassHatK), in, out})
	}
	return t
}

func optScore(v *float64) string {
	if v == nil {
		return "—"
	}
	return score(*v)
}

// stagesIntro introduces the pipeline table.
const stagesIntro = "A bench --pipeline's stages: per stage, source and agent, over its attempts (k, the most attempts of a task): " +
	"pass@1 is the macro mean of a task's pass rate, pass@k the unbiased estimate that at least one of k attempts passes, " +
	"pass^k that all k do. A generation attempt passes when its policy is valid and sufficient (recall 1 on every axis); " +
	"a shortcut run when its attack was blocked; any other run when it succeeded. " +
	"Runs that could not be carried out are counted apart, not as attempts; tokens are per run of the row."
