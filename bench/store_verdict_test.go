package bench

import (
	"database/sql"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/trial"
	"github.com/authbench/authbench/verdict"
)

// TestStoreKeepsTheRunsVerdict: the row stores the classification its
// task run computed (result.json), not one of its own: classes, primary
// class, deciding denial ("op axis path"), first sensitive access and
// the network axis's F1 in their columns, and the record read back as
// it was put.
func TestStoreKeepsTheRunsVerdict(t *testing.T) {
	spec, err := policy.ParseSpec([]byte(`{
  "required_permissions": {"read": ["/app/x"], "write": [], "execute": [], "network": ["mirror:80"]},
  "scored_roots": {"read": ["/app"], "write": [], "execute": []},
  "implicit_permissions": {"read": [], "write": [], "execute": []},
  "sensitive_permissions": {"read": ["/app/key"], "write": [], "execute": []}
}`), "spec")
	if err != nil {
		t.Fatal(err)
	}
	refused := audit.NetworkDenial("pypi.org:443")
	no := false
	res := &runapi.TaskResult{Agent: "oracle", PolicySource: runapi.SourceSpec, Attack: &no, VerifiersTraced: true,
		Denials:         []audit.Denial{refused},
		TracedSensitive: []runapi.SensitiveAccess{{Op: "open", Axis: policy.Read, Path: "/app/key", Pattern: "/app/key"}},
		StaticScore:     &policy.Score{Valid: true, Network: &policy.AxisScore{Precision: 1, Recall: 0.5, F1: 2.0 / 3}},
		// What the run computed (here unlike what the bench would: the
		// run's word is stored).
		Classification: verdict.Classification{Classes: []verdict.Class{verdict.ClassNetworkDenied, verdict.ClassRequestRefused},
			Primary: verdict.ClassNetworkDenied, Deciding: &refused, ExposureAccess: "open read /app/key"}}
	r := trial.Record{Identity: trial.Identity{Task: "v", Dataset: "sensitive", Source: "spec", Agent: "oracle", Trial: 1}, Dir: "v"}
	trial.FromTaskResult(&r, res, trial.Policy{Source: runapi.SourceSpec, Policy: runapi.SpecPolicy(spec), Valid: true}, spec)
	dir := t.TempDir()
	s := testStore(t, dir)
	if err := s.Put(&r); err != nil {
		t.Fatal(err)
	}
	var classes, primary, deciding string
	var exposure sql.NullString
	var netF1 sql.NullFloat64
	if err := s.db.QueryRow(`SELECT classes, primary_class, deciding_denial, exposure_access, network_f1 FROM runs WHERE task = 'v'`).
		Scan(&classes, &primary, &deciding, &exposure, &netF1); err != nil {
		t.Fatal(err)
	}
	if classes != "network_denied,request_refused" || primary != "network_denied" || deciding != "connect network pypi.org:443" ||
		exposure.String != "open read /app/key" || !netF1.Valid || netF1.Float64 != 2.0/3 {
		t.Fatalf("columns: %q %q %q %+v %+v", classes, primary, deciding, exposure, netF1)
	}
	got, err := s.Records()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !reflect.DeepEqual(got[0], r) {
		t.Fatalf("read back\n%+v\nwant\n%+v", got, r)
	}
	// A run with no sensitive access and no network score: NULL there.
	plain := sampleRecord("p", 1)
	plain.ExposureAccess = ""
	if err := s.Put(&plain); err != nil {
		t.Fatal(err)
	}
	if err := s.db.QueryRow(`SELECT exposure_access, network_f1 FROM runs WHERE task = 'p'`).Scan(&exposure, &netF1); err != nil || exposure.Valid || netF1.Valid {
		t.Fatalf("plain run: %+v %+v %v, want NULL", exposure, netF1, err)
	}
}

// TestStoreMigratesVerdictColumns: a database made before the verdict
// columns gains them when opened, each old row's filled from its record
// (NULL where the record has none), and the rows still load.
func TestStoreMigratesVerdictColumns(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, DBFile))
	if err != nil {
		t.Fatal(err)
	}
	old := strings.Replace(strings.Replace(schema, "\texposure_access TEXT,\n", "", 1), "\tnetwork_f1 REAL,\n", "", 1)
	if strings.Contains(old, "exposure_access") || strings.Contains(old, "network_f1") {
		t.Fatalf("old schema keeps the verdict columns:\n%s", old)
	}
	if _, err := db.Exec(old); err != nil {
		t.Fatal(err)
	}
	oldCols := strings.Replace(runColumns, ", exposure_access, network_f1", "", 1)
	recs := map[string]string{
		"exposed": `{"task":"exposed","source":"spec","agent":"oracle","trial":1,"classes":["sensitive_exposure"],"primary_class":"sensitive_exposure",` +
			`"exposure_access":"open read /app/key","network_precision":1,"network_recall":1,"network_f1":1,"dir":"exposed"}`,
		"plain": `{"task":"plain","source":"spec","agent":"oracle","trial":1,"classes":[],"dir":"plain"}`,
	}
	for task, rec := range recs {
		if _, err := db.Exec(`INSERT INTO runs (`+oldCols+`) VALUES (?,'spec','oracle',1,'standard','',1,NULL,0,1,1,1,1,'','','','',0,0,0,0,0,?,'2026-01-01T00:00:00Z',?,NULL,0,NULL,0,0,NULL,NULL,NULL,NULL,NULL)`,
			task, task, rec); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, task), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, task, JobResultFile), []byte(`{"authbench": `+rec+`}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	s := testStore(t, dir)
	defer s.Close()
	for task, want := range map[string][2]any{"exposed": {"open read /app/key", 1.0}, "plain": {nil, nil}} {
		var exposure sql.NullString
		var netF1 sql.NullFloat64
		if err := s.db.QueryRow(`SELECT exposure_access, network_f1 FROM runs WHERE task = ?`, task).Scan(&exposure, &netF1); err != nil {
			t.Fatal(err)
		}
		if (want[0] == nil) == exposure.Valid || (want[0] != nil && exposure.String != want[0]) ||
			(want[1] == nil) == netF1.Valid || (want[1] != nil && netF1.Float64 != want[1]) {
			t.Errorf("%s: exposure_access %+v network_f1 %+v, want %v", task, exposure, netF1, want)
		}
	}
	got, err := s.Records()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ExposureAccess != "open read /app/key" || got[0].Primary != verdict.ClassSensitiveExposure || got[1].Classes == nil {
		t.Fatalf("records %+v", got)
	}
}
