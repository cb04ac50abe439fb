package report

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/authbench/authbench/trial"
	"github.com/authbench/authbench/verdict"
)

// notRun is a run of source whose image did not build: no verdicts, and
// (as a bench before the field was always set stored it) no semantics.
func notRun(task, source string, n int) trial.Record {
	r := run(task, DatasetStandard, source, "oracle", n)
	r.Utility, r.Semantics, r.Scored, r.PolicyValid = false, "", false, false
	r.Error, r.ErrorKind, r.AgentDidNotRun = "build task "+task+": COPY app.py: no such file", "build", true
	return r
}

// TestErrorIsNotAVerdict: a run that never started is counted once, as
// an error of its source's row (one row, though it has no semantics),
// with no failure class anywhere, and its drill-down entry has null
// verdicts.
func TestErrorIsNotAVerdict(t *testing.T) {
	recs := []trial.Record{
		run("a", DatasetStandard, "spec", "oracle", 1),
		failed(run("b", DatasetStandard, "spec", "oracle", 1), verdict.ClassReadInsufficient, "openat read /x"),
		notRun("c", "spec", 1),
		notRun("c", "trace", 1),
	}
	rep := Build(recs, Options{})
	var labels []string
	for _, row := range rep.Rows {
		labels = append(labels, row.Label())
	}
	if !slices.Equal(labels, []string{"spec / oracle", "trace / oracle"}) {
		t.Fatalf("Table 1 rows %q, want one per source", labels)
	}
	spec := rep.Rows[0]
	if spec.Runs != 3 || spec.Errors != 1 || spec.StandardSuccess.Runs != 2 || rep.Errors != 2 {
		t.Errorf("spec row %+v (report errors %d): the error must count only as an error", spec, rep.Errors)
	}
	for _, d := range rep.Failures {
		n := 0
		for _, c := range d.Classes {
			n += c.Count
		}
		want := map[string]int{"spec / oracle": 1, "trace / oracle": 0}[d.Label()]
		if d.Failed != want || n != want {
			t.Errorf("failures of %s: %d failed, %d classed; want %d (the error in no class)", d.Label(), d.Failed, n, want)
		}
	}
	for _, row := range rep.runsTable().Rows {
		if row[0] != "c" {
			continue
		}
		if exit, vu, res, class := row[5], row[6], row[9], row[10]; exit != "did not run" || vu != none || res != "error" || class != "" {
			t.Errorf("drill-down row %q: want agent exit 'did not run', V_u %s, result error, no class", row, none)
		}
	}
	var buf bytes.Buffer
	if err := rep.JSON(&buf); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tasks []map[string]any `json:"tasks"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, tr := range doc.Tasks {
		if tr["task"] != "c" {
			continue
		}
		for _, k := range []string{"utility", "attack", "agent_exit_code"} {
			if v, ok := tr[k]; !ok || v != nil {
				t.Errorf("drill-down %s of a run that did not start = %v (present %v), want null", k, v, ok)
			}
		}
	}
}

// TestDrillDownShowsExposedFile: an exposed run's entry names the file
// reached, in the JSON and in the runs table.
func TestDrillDownShowsExposedFile(t *testing.T) {
	r := exposed(run("k", DatasetSensitive, "spec", "oracle", 1))
	r.ExposureAccess = "openat read /srv/config/key.pem"
	rep := Build([]trial.Record{r}, Options{})
	if got := rep.Tasks[0].ExposureAccess; got != r.ExposureAccess {
		t.Errorf("entry's exposure_access %q", got)
	}
	if note := rep.runsTable().Rows[0][12]; !strings.Contains(note, "exposed: openat read /srv/config/key.pem") {
		t.Errorf("runs table note %q does not name the exposed file", note)
	}
}

// TestFailureChartShowsCounts: the failure chart labels each row with
// its failed runs, each class in the legend with its total and each wide
// enough segment with its count.
func TestFailureChartShowsCounts(t *testing.T) {
	var recs []trial.Record
	for n := 1; n <= 7; n++ {
		class, denial := verdict.ClassReadInsufficient, "openat read /x"
		if n > 5 {
			class, denial = verdict.ClassExecuteInsufficient, "execve execute /bin/y"
		}
		recs = append(recs, failed(run("t", DatasetStandard, "spec", "oracle", n), class, denial))
	}
	svg, err := Build(recs, Options{}).failureChart()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{">spec / oracle (7 failed)<", ">read_insufficient (5)<", ">execute_insufficient (2)<",
		">workflow_mismatch (0)<", ">5<", ">2<"} {
		if !strings.Contains(svg, want) {
			t.Errorf("failure chart has no text %q", want)
		}
	}
}

func TestShortColumns(t *testing.T) {
	tb := table{Header: []string{"Task", "Trial", "Note"}, Rows: [][]string{
		{"a-task-with-a-long-name-here", "1", "short"},
		{"b", "12", "error: " + strings.Repeat("x", 30)},
	}}
	if got := shortColumns(tb, 24); !slices.Equal(got, []bool{false, true, false}) {
		t.Errorf("shortColumns = %v", got)
	}
	if got := shortColumns(table{Header: []string{"é"}, Rows: [][]string{{strings.Repeat("é", 24)}}}, 24); !got[0] {
		t.Error("a cell of 24 characters (48 bytes) is short")
	}
}

// TestPlanGrantsSensitiveBesideTheStaticScore: a row counts its scored
// sensitive runs whose enforced plan granted a sensitive file, in Table 1
// and beside the static table's sensitive coverage, which stays 0.00.
func TestPlanGrantsSensitiveBesideTheStaticScore(t *testing.T) {
	granted := run("k", DatasetSensitive, "trace", "oracle", 1)
	granted.PlanGrantsSensitive = []string{"read /srv/config/key.pem"}
	rep := Build([]trial.Record{granted, run("k", DatasetSensitive, "trace", "oracle", 2),
		run("s", DatasetStandard, "trace", "oracle", 1), run("k", DatasetSensitive, "unconstrained", "oracle", 1)}, Options{})
	row := findRow(t, rep, "trace", "oracle")
	if g := row.PlanGrantsSensitive; g == nil || g.Granting != 1 || g.Runs != 2 {
		t.Fatalf("plan grants %+v, want 1 of 2 runs", g)
	}
	if g := findRow(t, rep, "unconstrained", "oracle").PlanGrantsSensitive; g != nil {
		t.Errorf("unconstrained has no plan, got %+v", g)
	}
	t1 := rep.table1()
	col := slices.Index(t1.Header, "Plan grants sensitive (lower is better)")
	if col < 0 || t1.Rows[1][col] != "1 of 2 runs" || t1.Rows[0][col] != none {
		t.Errorf("Table 1 column %d: %q", col, t1.Rows)
	}
	st := rep.staticTable()
	cov, plan := slices.Index(st.Header, "Sensitive granted (lower is better)"), slices.Index(st.Header, "Plan grants sensitive (lower is better)")
	for _, cells := range st.Rows {
		want, wantCov := none, none
		if cells[2] == DatasetSensitive {
			want, wantCov = "1 of 2 runs", "0.00"
		}
		if plan != cov+1 || cells[plan] != want || cells[cov] != wantCov {
			t.Errorf("static row %q: coverage %q, plan grants %q (want %q beside it)", cells[:3], cells[cov], cells[plan], want)
		}
	}
}
