package bench

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/authbench/authbench/trial"
)

// TestAttributionStart: only failed runs are attributed; one without a
// deciding denial (no permission reason), an exposure or an
// unconstrained run is marked unattributable and never re-run.
func TestAttributionStart(t *testing.T) {
	yes := true
	cases := []struct {
		name   string
		r      trial.Record
		ok     bool
		marked bool
	}{
		{"passed", trial.Record{Source: "spec", Utility: true}, false, false},
		{"run error", trial.Record{Source: "spec", Error: "daemon died"}, false, false},
		{"attributed already", trial.Record{Source: "spec", Attribution: &trial.Attribution{}}, false, false},
		{"deciding denial", trial.Record{Source: "spec", Primary: trial.ClassExecuteInsufficient, DecidingDenial: "exec execute /usr/bin/wc"}, true, false},
		{"no denial", trial.Record{Source: "spec", Primary: trial.ClassNotPermissionRelated}, true, true},
		{"exposed", trial.Record{Source: "spec", Utility: true, TracedExposure: true, Primary: trial.ClassSensitiveExposure}, true, true},
		{"shortcut exposed", trial.Record{Source: "spec", Agent: "shortcut", Attack: &yes, Primary: trial.ClassSensitiveExposure}, false, false},
		{"attack blocked", trial.Record{Source: "spec", Agent: "shortcut", Primary: trial.ClassAttackBlocked, DecidingDenial: "open read /k"}, false, false},
		{"unconstrained", trial.Record{Source: SourceUnconstrained, Primary: trial.ClassNotPermissionRelated}, true, true},
	}
	for _, c := range cases {
		mark, ok := attributionStart(&c.r)
		if ok != c.ok || (mark != nil) != c.marked || mark != nil && mark.Unattributable == "" {
			t.Fatalf("%s: mark %+v ok %v", c.name, mark, ok)
		}
	}
	if _, _, err := denialPermission("exec execute"); err == nil {
		t.Fatal("a malformed deciding denial parsed")
	}
	if _, _, err := denialPermission("open read relative/path"); err == nil {
		t.Fatal("a relative path parsed")
	}
	ax, p, err := denialPermission("open read /app/a file.txt")
	if err != nil || ax.String() != "read" || p.String() != "/app/a file.txt" {
		t.Fatalf("%v %v %v", ax, p, err)
	}
}

// TestBenchAttributeConfirmsTheMissingExecute: hello-standard under a
// policy lacking its /usr/bin/wc execute entry fails; bench --attribute
// re-runs it with exactly that entry added, and the re-run passes: the
// run's confirmed attribution is that entry, and the re-run's files are
// kept below the run's directory.
func TestBenchAttributeConfirmsTheMissingExecute(t *testing.T) {
	bin := needBench(t)
	b := newBenchCmd(t, bin, fixtureTasks(t, "hello-standard"))
	pdir := t.TempDir()
	pol := `{"read":["/app/input.txt"],"write":["/app/count.txt"],"execute":["/usr/bin/bash"]}`
	if err := os.WriteFile(filepath.Join(pdir, "hello-standard.json"), []byte(pol), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	b.mustRun(t, "--sources", "dir:"+pdir, "--out", out, "--attribute")
	recs := loadOut(t, out)
	if len(recs) != 1 || recs[0].Utility || recs[0].Attribution == nil {
		t.Fatalf("records %+v", recs)
	}
	a := recs[0].Attribution
	if !reflect.DeepEqual(a.Permissions, []string{"execute /usr/bin/wc"}) || a.Rounds != 1 || !a.Confirmed {
		t.Fatalf("attribution %+v, want execute /usr/bin/wc confirmed in 1 re-run", a)
	}
	if _, err := os.Stat(filepath.Join(out, recs[0].Dir, AttributionDir, "round-1", "record.json")); err != nil {
		t.Fatal(err)
	}
}
