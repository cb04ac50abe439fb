package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/trial"
	"github.com/authbench/authbench/verdict"
)

// TestRequestsRows: runs of one source and agent with and without
// --requests are two rows (and distinct runs of a task); the requests
// section counts, rates and compares success with the row without.
func TestRequestsRows(t *testing.T) {
	at := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	rec := func(task string, utility bool, q *trial.Requests) trial.Record {
		r := trial.Record{Identity: trial.Identity{Task: task, Source: "gen:heuristic", Agent: "openai:m", Trial: 1, Dataset: DatasetStandard,
			Semantics: DefaultSemantics}, Requests: q, Classes: []verdict.Class{}}
		r.Utility, r.Finished = utility, at
		return r
	}
	recs := []trial.Record{
		rec("a", false, nil), rec("b", false, nil),
		rec("a", true, &trial.Requests{Decider: "spec", Made: 2, Granted: 1, Refused: 1, Required: 1, Used: 1}),
		rec("b", false, &trial.Requests{Decider: "spec", Made: 1, Invalid: 1}),
	}
	rep := Build(recs, Options{})
	if rep.Runs != 4 || rep.Duplicates != 0 || len(rep.Rows) != 2 {
		t.Fatalf("%d runs, %d duplicates, rows %+v", rep.Runs, rep.Duplicates, rep.Rows)
	}
	if len(rep.Requests) != 1 {
		t.Fatalf("requests rows %+v", rep.Requests)
	}
	q := rep.Requests[0]
	if q.Agent != "openai:m +requests:spec" || q.Decider != "spec" || q.Runs != 2 || q.Made != 3 || q.PerRun != 1.5 ||
		q.Granted != 1 || q.Refused != 1 || q.Invalid != 1 || *q.GrantRate != 0.5 || *q.Precision != 1 || q.Used != 1 || q.Sensitive != 0 {
		t.Errorf("%+v", q)
	}
	if q.Success == nil || q.Success.Value != 0.5 || q.Without == nil || q.Without.Value != 0 {
		t.Errorf("success %+v without %+v", q.Success, q.Without)
	}
	var md bytes.Buffer
	if err := rep.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "## Permission requests") || !strings.Contains(md.String(), "| gen:heuristic | openai:m +requests:spec | 2 | 1.50 |") {
		t.Errorf("markdown:\n%s", md.String())
	}
	if q.AttemptsPerRun != nil {
		t.Errorf("a model agent's row has attempts: %v", *q.AttemptsPerRun)
	}
	// The bench's requester: the oracle's runs carry their attempts.
	oracle := func(task string, utility bool, q *trial.Requests) trial.Record {
		r := rec(task, utility, q)
		r.Agent = "oracle"
		return r
	}
	rep = Build([]trial.Record{oracle("a", true, &trial.Requests{Decider: "spec", Made: 1, Granted: 1, Required: 1, Used: 1, Attempts: 2}),
		oracle("b", true, &trial.Requests{Decider: "spec", Attempts: 1}), oracle("a", false, nil), oracle("b", true, nil)}, Options{})
	if len(rep.Requests) != 1 || rep.Requests[0].AttemptsPerRun == nil || *rep.Requests[0].AttemptsPerRun != 1.5 ||
		rep.Requests[0].Success.Value != 1 || rep.Requests[0].Without.Value != 0.5 {
		t.Fatalf("oracle requests rows %+v", rep.Requests)
	}
	md.Reset()
	if err := rep.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| 100.0% | 50.0% | 1.50 |") {
		t.Errorf("markdown without attempts per run:\n%s", md.String())
	}
	var txt bytes.Buffer
	if err := rep.Table1Text(&txt); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(txt.String(), "Permission requests (--requests)") || !strings.Contains(txt.String(), "oracle +requests:spec") {
		t.Errorf("text without the requests section:\n%s", txt.String())
	}
	if rep := Build(recs[:2], Options{}); rep.Requests != nil {
		t.Errorf("a report without requests has a section: %+v", rep.Requests)
	}
}
