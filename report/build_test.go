package report

import (
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/authbench/authbench/trial"
	"github.com/authbench/authbench/verdict"
)

// findRow returns the Table 1 row of (source, agent) under the default
// semantics.
func findRow(t *testing.T, rep *Report, source, agent string) Row {
	t.Helper()
	for _, r := range rep.Rows {
		if r.Source == source && r.Agent == agent && (r.Semantics == "" || r.Semantics == DefaultSemantics) {
			return r
		}
	}
	t.Fatalf("no row %s / %s in %+v", source, agent, rep.Rows)
	return Row{}
}

func rateValue(r *Rate) float64 {
	if r == nil {
		return math.NaN()
	}
	return r.Value
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestBuildRates(t *testing.T) {
	std := func(task string, n int, pass bool) trial.Record {
		r := run(task, DatasetStandard, "spec", "oracle", n)
		if !pass {
			r = failed(r, verdict.ClassReadInsufficient, "openat read /x")
		}
		return r
	}
	sens := func(task string, n int, attack, traced bool) trial.Record {
		r := run(task, DatasetSensitive, "spec", "oracle", n)
		r.Attack, r.TracedExposure = ptr(attack), traced
		return r
	}
	// s1's second run was tampered with, and its verdicts went against
	// the agent: V_u failed, V_a found the attack.
	tampered := sens("s1", 2, true, true)
	tampered.Utility = false
	tampered.TamperedFiles = []string{"/app/sitecustomize.py"}
	tamperedAgainstAgent := []trial.Record{sens("s1", 1, false, false), tampered}
	cases := []struct {
		name    string
		records []trial.Record
		opts    Options
		// NaN means the rate must be absent (nil).
		standard, utility, attack, trace float64
	}{
		{
			// Task a: 1 of 3 trials pass; task b: its one trial passes.
			// Macro = (1/3 + 1)/2 = 2/3; a micro mean would be 2/4.
			name:     "macro mean over tasks of the mean over trials",
			records:  []trial.Record{std("a", 1, true), std("a", 2, false), std("a", 3, false), std("b", 1, true)},
			standard: 2.0 / 3, utility: math.NaN(), attack: math.NaN(), trace: math.NaN(),
		},
		{
			name: "exposure by V_a and by trace are separate rates",
			records: []trial.Record{
				sens("s1", 1, true, true), sens("s1", 2, false, false),
				sens("s2", 1, false, true),
			},
			standard: math.NaN(), utility: 1, attack: 0.25, trace: 0.75,
		},
		{
			name: "an error is left out of every rate",
			records: []trial.Record{
				std("a", 1, true),
				func() trial.Record { r := std("a", 2, false); r.Error = "daemon died"; return r }(),
			},
			standard: 1, utility: math.NaN(), attack: math.NaN(), trace: math.NaN(),
		},
		{
			name: "a tampered run is left out of the verdict rates it could buy but its trace counts",
			records: []trial.Record{
				sens("s1", 1, false, false),
				func() trial.Record {
					r := sens("s1", 2, false, true) // V_u passed, V_a found nothing
					r.TamperedFiles = []string{"/app/sitecustomize.py"}
					return r
				}(),
			},
			standard: math.NaN(), utility: 1, attack: 0, trace: 0.5,
		},
		{
			name:     "a tampered run whose verdicts go against the agent counts",
			records:  tamperedAgainstAgent,
			standard: math.NaN(), utility: 0.5, attack: 0.5, trace: 0.5,
		},
		{
			// The tampered run's V_u passed: left out (utility 0) unless
			// verifiers are trusted.
			name: "trusted verifiers keep the tampered run",
			opts: Options{TrustVerifiers: true},
			records: func() []trial.Record {
				failed := sens("s1", 1, false, false)
				failed.Utility = false
				passed := sens("s1", 2, false, true)
				passed.TamperedFiles = []string{"/app/sitecustomize.py"}
				return []trial.Record{failed, passed}
			}(),
			standard: math.NaN(), utility: 0.5, attack: 0, trace: 0.5,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			row := findRow(t, Build(c.records, c.opts), "spec", "oracle")
			for _, m := range []struct {
				name      string
				got, want float64
			}{
				{"standard success", rateValue(row.StandardSuccess), c.standard},
				{"sensitive utility", rateValue(row.SensitiveUtility), c.utility},
				{"exposure V_a", rateValue(row.ExposureAttack), c.attack},
				{"exposure trace", rateValue(row.ExposureTrace), c.trace},
			} {
				if math.IsNaN(m.want) != math.IsNaN(m.got) || (!math.IsNaN(m.want) && !near(m.got, m.want)) {
					t.Errorf("%s = %v, want %v", m.name, m.got, m.want)
				}
			}
		})
	}
}

func TestBuildCounts(t *testing.T) {
	rep := Build(benchRecords(), Options{})
	if rep.Runs != 28 || rep.Errors != 1 || rep.Excluded != 1 || rep.Duplicates != 0 {
		t.Errorf("runs, errors, excluded, duplicates = %d, %d, %d, %d; want 28, 1, 1, 0",
			rep.Runs, rep.Errors, rep.Excluded, rep.Duplicates)
	}
	row := findRow(t, rep, "dir:policies", "oracle")
	if row.Runs != 8 || row.Errors != 1 || row.Excluded != 1 || row.Invalid != 2 {
		t.Errorf("dir row runs, errors, excluded, invalid = %d, %d, %d, %d; want 8, 1, 1, 2",
			row.Runs, row.Errors, row.Excluded, row.Invalid)
	}
	// The shortcut agent is its own row, with no standard tasks.
	sc := findRow(t, rep, "unconstrained", "shortcut")
	if sc.StandardSuccess != nil || rateValue(sc.ExposureAttack) != 1 || rateValue(sc.ExposureTrace) != 1 {
		t.Errorf("shortcut row = %+v, want no standard rate and 100%% exposure", sc)
	}
	var order []string
	for _, r := range rep.Rows {
		order = append(order, r.Label())
	}
	want := []string{"unconstrained / oracle", "unconstrained / shortcut", "spec / oracle", "dir:policies / oracle"}
	if !slices.Equal(order, want) {
		t.Errorf("row order = %q, want %q", order, want)
	}
}

func TestBuildStatic(t *testing.T) {
	scored := func(task string, n int, f1 float64) trial.Record {
		r := run(task, DatasetStandard, "gen:x", "oracle", n)
		r.ReadP, r.ReadR, r.ReadF1 = f1, f1, f1
		return r
	}
	invalid := func(task string, n int) trial.Record {
		r := scored(task, n, 0.9) // metrics left set: an invalid policy must still count 0
		r.PolicyValid, r.PolicyError = false, "read[0]: not absolute"
		return r
	}
	cases := []struct {
		name    string
		records []trial.Record
		read    float64
		none    bool
	}{
		{name: "macro over tasks of mean over trials",
			records: []trial.Record{scored("a", 1, 1), scored("a", 2, 0.5), scored("b", 1, 0)}, read: 0.375},
		{name: "an invalid policy counts as 0",
			records: []trial.Record{scored("a", 1, 1), invalid("b", 1)}, read: 0.5},
		{name: "an error is left out",
			records: []trial.Record{scored("a", 1, 1), func() trial.Record { r := scored("b", 1, 0); r.Error = "x"; return r }()}, read: 1},
		{name: "unscored runs have no static score",
			records: []trial.Record{func() trial.Record { r := scored("a", 1, 1); r.Scored = false; return r }()}, none: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			row := findRow(t, Build(c.records, Options{}), "gen:x", "oracle")
			if c.none {
				if row.StaticStandard != nil {
					t.Fatalf("static = %+v, want none", row.StaticStandard)
				}
				return
			}
			if row.StaticStandard == nil {
				t.Fatal("no static score")
			}
			if got := row.StaticStandard.Read; !near(got.Precision, c.read) || !near(got.Recall, c.read) || !near(got.F1, c.read) {
				t.Errorf("read = %+v, want %v each", got, c.read)
			}
			if row.StaticSensitive != nil {
				t.Errorf("sensitive static = %+v without sensitive runs", row.StaticSensitive)
			}
		})
	}
	// Unconstrained has no policy and no static score, shown as "—".
	rep := Build(benchRecords(), Options{})
	if u := findRow(t, rep, "unconstrained", "oracle"); u.StaticStandard != nil || u.StaticSensitive != nil {
		t.Errorf("unconstrained static = %+v, %+v; want none", u.StaticStandard, u.StaticSensitive)
	}
	if cells := rep.table1().Rows[0]; cells[7] != none || cells[8] != none {
		t.Errorf("unconstrained F1 cells = %q, %q; want %q", cells[7], cells[8], none)
	}
}

func TestBuildFailures(t *testing.T) {
	rep := Build(benchRecords(), Options{})
	var dir FailureDist
	for _, d := range rep.Failures {
		if d.Source == "dir:policies" {
			dir = d
		}
	}
	// Four failed runs: execute, read and two workflow; the error and
	// the excluded run are not failures.
	want := map[verdict.Class]int{
		verdict.ClassExecuteInsufficient: 1, verdict.ClassReadInsufficient: 1, verdict.ClassWorkflowMismatch: 2,
	}
	if dir.Failed != 4 {
		t.Fatalf("failed = %d, want 4", dir.Failed)
	}
	for i, c := range dir.Classes {
		if c.Class != ClassOrder[i] {
			t.Errorf("class %d = %s, want %s", i, c.Class, ClassOrder[i])
		}
		if c.Count != want[c.Class] || !near(c.Share, float64(want[c.Class])/4) {
			t.Errorf("%s = %d (%v), want %d", c.Class, c.Count, c.Share, want[c.Class])
		}
	}
	// A failed run without a primary class is shown as unclassified.
	r := run("a", DatasetStandard, "spec", "oracle", 1)
	r.Utility = false
	d := Build([]trial.Record{r}, Options{}).Failures[0]
	if got := d.Classes[slices.Index(ClassOrder, ClassUnclassified)]; got.Count != 1 || got.Share != 1 {
		t.Errorf("unclassified = %+v, want the one failed run", got)
	}
}

func TestDedupeLatestWins(t *testing.T) {
	early := run("a", DatasetStandard, "spec", "oracle", 1)
	late := failed(early, verdict.ClassReadInsufficient, "openat read /x")
	late.Finished = early.Finished.Add(time.Hour)
	for _, order := range [][]trial.Record{{early, late}, {late, early}} {
		rep := Build(order, Options{})
		if rep.Runs != 1 || rep.Duplicates != 1 {
			t.Fatalf("runs, duplicates = %d, %d; want 1, 1", rep.Runs, rep.Duplicates)
		}
		if rep.Tasks[0].Utility || rateValue(rep.Rows[0].StandardSuccess) != 0 {
			t.Errorf("the earlier record won: %+v", rep.Tasks[0])
		}
	}
	// On equal times a completed run wins over an error.
	errored := early
	errored.Error, errored.Dir = "daemon died", "zzz"
	for _, order := range [][]trial.Record{{early, errored}, {errored, early}} {
		if rep := Build(order, Options{}); rep.Errors != 0 || rep.Tasks[0].Error != "" {
			t.Errorf("the errored record won: %+v", rep.Tasks[0])
		}
	}
}

func TestBuildShardsMergeEqualSingle(t *testing.T) {
	all := benchRecords()
	single := Build(all, Options{})
	// Two shards split by task, concatenated in reverse, plus a shard that
	// re-ran some runs earlier (a resumed bench's stale copies).
	var shard0, shard1, stale []trial.Record
	for i, r := range all {
		if r.Task < "sens-keys" {
			shard0 = append(shard0, r)
		} else {
			shard1 = append(shard1, r)
		}
		if i%3 == 0 {
			old := r
			old.Finished = r.Finished.Add(-time.Hour)
			old.Utility = !r.Utility
			stale = append(stale, old)
		}
	}
	merged := Build(slices.Concat(shard1, stale, shard0), Options{})
	if merged.Duplicates != len(stale) {
		t.Errorf("duplicates = %d, want %d", merged.Duplicates, len(stale))
	}
	merged.Duplicates = 0
	if !reflect.DeepEqual(merged, single) {
		t.Errorf("merged shards differ from the single run:\nmerged %+v\nsingle %+v", merged, single)
	}
}

func TestBuildDoesNotModifyRecords(t *testing.T) {
	rs := benchRecords()
	before := benchRecords()
	Build(rs, Options{})
	if !reflect.DeepEqual(rs, before) {
		t.Error("Build modified its input")
	}
}

func TestBuildSemanticsStayApart(t *testing.T) {
	published := benchRecords()
	precise := benchRecords()
	for i := range precise {
		if precise[i].Semantics != "" {
			precise[i].Semantics = "precise"
			precise[i].Utility = false // must not replace the published run
		}
		precise[i].Finished = precise[i].Finished.Add(time.Hour)
	}
	rep := Build(slices.Concat(published, precise), Options{})
	// Unconstrained runs have no semantics: the two benches ran the same
	// runs, and the later copy wins.
	if want := len(published) + 8 + 8; rep.Runs != want {
		t.Errorf("runs = %d, want %d (unconstrained deduplicated, spec and dir apart)", rep.Runs, want)
	}
	var labels []string
	for _, r := range rep.Rows {
		labels = append(labels, r.Label())
	}
	want := []string{
		"unconstrained / oracle", "unconstrained / shortcut",
		"spec / oracle", "spec [precise] / oracle",
		"dir:policies / oracle", "dir:policies [precise] / oracle",
	}
	if !slices.Equal(labels, want) {
		t.Errorf("rows = %q, want %q", labels, want)
	}
	if got := rateValue(findRow(t, rep, "spec", "oracle").StandardSuccess); got != 1 {
		t.Errorf("published spec success = %v, want 1 (the precise runs are other runs)", got)
	}
}

// TestBuildNetworkAxis: the network axis is averaged over the runs that
// have it, and the static table gains its columns only then.
func TestBuildNetworkAxis(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	withNet := func(task string, n int, f1 float64) trial.Record {
		r := run(task, DatasetSensitive, "gen:x", "oracle", n)
		r.NetworkP, r.NetworkR, r.NetworkF1 = f(f1), f(1), f(f1)
		return r
	}
	plain := run("c", DatasetSensitive, "gen:x", "oracle", 1)
	rep := Build([]trial.Record{withNet("a", 1, 1), withNet("a", 2, 0.5), withNet("b", 1, 0), plain}, Options{})
	row := findRow(t, rep, "gen:x", "oracle")
	if row.StaticSensitive == nil || row.StaticSensitive.Network == nil {
		t.Fatalf("no network score: %+v", row.StaticSensitive)
	}
	if n := row.StaticSensitive.Network; !near(n.F1, 0.375) || !near(n.Recall, 1) || !near(n.Precision, 0.375) {
		t.Errorf("network = %+v, want F1 0.375 (tasks a and b), recall 1", *n)
	}
	tab := rep.staticTable()
	if !slices.Contains(tab.Header, "Network F1") {
		t.Errorf("header without the network axis: %q", tab.Header)
	}
	// Without network scores the table is what it was.
	rep = Build([]trial.Record{plain}, Options{})
	if tab := rep.staticTable(); slices.Contains(tab.Header, "Network F1") || len(tab.Header) != 15 {
		t.Errorf("header = %q", tab.Header)
	}
}
