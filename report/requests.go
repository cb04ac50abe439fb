package report

import (
	"io"
	"strconv"
	"strings"

	"github.com/authbench/authbench/trial"
)

// requestsMark joins an agent and its run's --requests decider in a
// row's agent name, so that the same agent with and without requests are
// two rows (and two runs of one task).
const requestsMark = " +requests:"

// rowAgent is a run's agent as rows and run identities name it.
func rowAgent(r *trial.Record) string {
	if r.Requests == nil {
		return r.Agent
	}
	return r.Agent + requestsMark + r.Requests.Decider
}

// RequestsRow summarises the run-time permission requests of one row of
// Table 1 whose runs had a decider (docs/benchmark.md, "Permission
// requests").
type RequestsRow struct {
	Source    string `json:"source"`
	Agent     string `json:"agent"`
	Semantics string `json:"semantics,omitempty"`
	// Requests are the row's carried-out runs' requests summed
	// (trial.Requests.Add); Runs counts those runs.
	trial.Requests
	Runs int `json:"runs"`
	// PerRun is Made / Runs; GrantRate Granted / (Granted + Refused);
	// Precision Required / Granted (nil without grants).
	PerRun float64 `json:"requests_per_run"`
	// AttemptsPerRun is Attempts / Runs for the bench's requester (the
	// oracle and the shortcut under --requests: how many times a run was
	// carried out, its re-runs after grants included); nil for agents
	// that ask themselves.
	AttemptsPerRun *float64 `json:"attempts_per_run,omitempty"`
	GrantRate      *float64 `json:"grant_rate"`
	Precision      *float64 `json:"precision"`
	// Success is the row's end-to-end success (V_u passed, nothing
	// exposed) with requests; Without the same source and agent's without
	// them, when the report holds that row.
	Success *Rate `json:"success"`
	Without *Rate `json:"success_without,omitempty"`
}

// requestsRows are the request summaries of the groups whose runs had a
// decider.
func requestsRows(groups []rowGroup, opts Options) []RequestsRow {
	success := map[[3]string]*Rate{}
	for _, g := range groups {
		success[[3]string{g.source, g.agent, g.semantics}] = successRate(g, opts)
	}
	var out []RequestsRow
	for _, g := range groups {
		base, decider, ok := strings.Cut(g.agent, requestsMark)
		if !ok {
			continue
		}
		q := RequestsRow{Source: g.source, Agent: g.agent, Semantics: g.semantics, Requests: trial.Requests{Decider: decider},
			Success: success[[3]string{g.source, g.agent, g.semantics}], Without: success[[3]string{g.source, base, g.semantics}]}
		for _, r := range g.runs {
			if r.Error != "" || r.Requests == nil {
				continue
			}
			q.Runs++
			q.Add(r.Requests)
		}
		if q.Runs > 0 {
			q.PerRun = float64(q.Made) / float64(q.Runs)
		}
		if q.Attempts > 0 {
			q.AttemptsPerRun = ratio(q.Attempts, q.Runs)
		}
		q.GrantRate = ratio(q.Granted, q.Granted+q.Refused)
		q.Precision = ratio(q.Required, q.Granted)
		out = append(out, q)
	}
	return out
}

// successRate is a group's macro end-to-end success over its counted runs.
func successRate(g rowGroup, opts Options) *Rate {
	var runs []*trial.Record
	for _, r := range g.runs {
		if verdictCounts(r, opts) {
			runs = append(runs, r)
		}
	}
	return macroRate(runs, Succeeded)
}

func ratio(a, b int) *float64 {
	if b == 0 {
		return nil
	}
	v := float64(a) / float64(b)
	return &v
}

// requestsIntro introduces the requests section.
const requestsIntro = "Run-time permission requests (--requests) per row: requests per run, how many were granted, " +
	"refused (over the limit included) and malformed, the grant rate, precision (granted requests the spec requires), " +
	"granted requests the agent then used, requests that would reach a sensitive file (should be 0), " +
	"end-to-end success with requests beside the same source and agent without them (a report over both out dirs), " +
	"and, for the oracle and the shortcut (whose requests the bench makes, re-running a run after each grant), how many times a run was carried out."

// requestsTable is the requests section.
func (r *Report) requestsTable() table {
	t := table{Header: []string{"Source", "Agent", "Runs", "Requests per run", "Granted / refused / invalid",
		"Grant rate", "Precision " + higher, "Used", "Sensitive requested " + lower, "Success with " + higher, "Success without", "Attempts per run"}}
	for _, q := range r.Requests {
		t.Rows = append(t.Rows, []string{sourceName(q.Source, q.Semantics), q.Agent, strconv.Itoa(q.Runs),
			strconv.FormatFloat(q.PerRun, 'f', 2, 64),
			strconv.Itoa(q.Granted) + " / " + strconv.Itoa(q.Refused) + " / " + strconv.Itoa(q.Invalid),
			share(q.GrantRate), share(q.Precision), strconv.Itoa(q.Used), strconv.Itoa(q.Sensitive),
			percent(q.Success), percent(q.Without), perRun(q.AttemptsPerRun)})
	}
	return t
}

func perRun(v *float64) string {
	if v == nil {
		return none
	}
	return strconv.FormatFloat(*v, 'f', 2, 64)
}

func share(v *float64) string {
	if v == nil {
		return none
	}
	return strconv.FormatFloat(100**v, 'f', 1, 64) + "%"
}

// requestsText writes the requests section as aligned columns, when the
// report has one.
func (r *Report) requestsText(w io.Writer) error {
	if len(r.Requests) == 0 {
		return nil
	}
	if _, err := io.WriteString(w, "\nPermission requests (--requests)\n"); err != nil {
		return err
	}
	return writeTextTable(w, r.requestsTable())
}
