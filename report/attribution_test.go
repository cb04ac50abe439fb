package report

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/authbench/authbench/trial"
	"github.com/authbench/authbench/verdict"
)

// TestAttributionRows: per row, the share of failed runs a re-run
// confirmed, the unattributable ones, and the permissions that flipped
// runs (most first); rows without attribution have none; the text, the
// Markdown and the HTML show the table.
func TestAttributionRows(t *testing.T) {
	fail := func(task string, a *trial.Attribution) trial.Record {
		r := failed(run(task, DatasetStandard, "gen:heuristic", "oracle", 1), verdict.ClassExecuteInsufficient, "exec execute /usr/bin/wc")
		r.Attribution = a
		return r
	}
	recs := []trial.Record{
		fail("a", &trial.Attribution{Permissions: []string{"execute /usr/bin/wc"}, Rounds: 1, Confirmed: true, RerunS: 2}),
		fail("b", &trial.Attribution{Permissions: []string{"execute /usr/bin/wc", "read /app/x"}, Rounds: 2, Confirmed: true, RerunS: 3}),
		fail("c", &trial.Attribution{Permissions: []string{"read /app/y"}, Rounds: 3, Stop: "still failing", RerunS: 4}),
		fail("d", &trial.Attribution{Permissions: []string{}, Unattributable: "no deciding denial"}),
		run("e", DatasetStandard, "gen:heuristic", "oracle", 1),
		failed(run("a", DatasetStandard, "spec", "oracle", 1), verdict.ClassReadInsufficient, "open read /x"),
	}
	rep := Build(recs, Options{})
	if len(rep.Attribution) != 1 {
		t.Fatalf("attribution rows %+v", rep.Attribution)
	}
	a := rep.Attribution[0]
	if a.Failed != 4 || a.Attributed != 3 || a.Confirmed != 2 || a.Unattributable != 1 || !near(a.Share, 0.5) || !near(a.RerunS, 9) {
		t.Fatalf("row %+v", a)
	}
	want := []PermissionCount{{"execute /usr/bin/wc", 2}, {"read /app/x", 1}}
	if !reflect.DeepEqual(a.Flipped, want) {
		t.Fatalf("flipped %+v, want %+v", a.Flipped, want)
	}
	var text, md, html bytes.Buffer
	if err := rep.Table1Text(&text); err != nil {
		t.Fatal(err)
	}
	if err := rep.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := rep.HTML(&html); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String(), "html": html.String()} {
		if !strings.Contains(out, "execute /usr/bin/wc (2)") || !strings.Contains(out, "50.0% (2)") {
			t.Fatalf("%s lacks the attribution table:\n%s", name, out)
		}
	}
}
