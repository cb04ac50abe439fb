package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/bench"
	"github.com/authbench/authbench/cli/core"
	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/trial"
	"github.com/authbench/authbench/verdict"
)

// writeOutDir makes a bench out dir holding records.
func writeOutDir(t *testing.T, recs ...trial.Record) string {
	t.Helper()
	dir := t.TempDir()
	d, err := safefile.OpenOutDir(dir, os.Geteuid())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	s, err := bench.OpenStore(d)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range recs {
		if recs[i].Dir == "" {
			recs[i].Dir = fmt.Sprintf("run-%d", i)
		}
		if err := s.Put(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestReportMergesOutDirs: two out dirs (shards) make one report, in
// every format; bad input is a usage error.
func TestReportMergesOutDirs(t *testing.T) {
	rec := func(task, dataset string, utility bool) trial.Record {
		return trial.Record{Identity: trial.Identity{Task: task, Dataset: dataset, Source: "spec", Agent: "oracle", Trial: 1},
			Verdicts: trial.Verdicts{Utility: utility}, PolicyValid: true, Scored: true, Classes: []verdict.Class{}, Finished: time.Now()}
	}
	a := writeOutDir(t, rec("t1", "standard", true))
	b := writeOutDir(t, rec("t2", "standard", false))
	var out, errb bytes.Buffer
	if code := Run([]string{"report", a, b, "--format", "json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var rep struct {
		Runs int `json:"runs"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || rep.Runs != 2 {
		t.Fatalf("runs %d (%v): %s", rep.Runs, err, out.String())
	}
	html := filepath.Join(t.TempDir(), "report.html")
	for _, format := range []string{"md", "text", "html"} {
		out.Reset()
		args := []string{"report", a, b, "--format", format}
		if format == "html" {
			args = append(args, "--out", html)
		}
		if code := Run(args, &out, &errb); code != 0 {
			t.Fatalf("%s: exit %d: %s", format, code, errb.String())
		}
		if format != "html" && !strings.Contains(out.String(), "50.0%") {
			t.Errorf("%s: no 50%% standard success:\n%s", format, out.String())
		}
	}
	if data, err := os.ReadFile(html); err != nil || !strings.Contains(string(data), "<svg") {
		t.Errorf("html: %v", err)
	}
	for _, bad := range [][]string{{"report", a, "--format", "pdf"}, {"report"}} {
		errb.Reset()
		if code := Run(bad, &out, &errb); code != core.ExitUsage {
			t.Errorf("%v: exit %d %s", bad, code, errb.String())
		}
	}
	// Benches run with --trust-verifiers make a report that trusts them.
	for _, d := range []string{a, b} {
		if err := os.WriteFile(filepath.Join(d, bench.JobConfigFile), []byte(`{"authbench": {"trust_verifiers": true}}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out.Reset()
	var trust struct {
		Trust bool `json:"trust_verifiers"`
	}
	if code := Run([]string{"report", a, b, "--format", "json"}, &out, &errb); code != 0 || json.Unmarshal(out.Bytes(), &trust) != nil || !trust.Trust {
		t.Errorf("trust from the benches: exit %d %s", code, out.String())
	}
	if code := Run([]string{"report", t.TempDir()}, &out, &errb); code != core.ExitFailure {
		t.Errorf("an empty dir: exit %d", code)
	}
}
