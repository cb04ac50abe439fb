package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/trial"
	"github.com/authbench/authbench/verdict"
)

// TestReportPricesTokens: report --config prices a row's tokens from the
// file's [prices] table; a named file that is missing or a malformed
// price is a usage error (exit 2).
func TestReportPricesTokens(t *testing.T) {
	r := trial.Record{Identity: trial.Identity{Task: "t1", Dataset: "standard", Source: "spec", Agent: "openai:m", Trial: 1},
		PolicyValid: true, Scored: true, Classes: []verdict.Class{}, Finished: time.Now()}
	r.AddTokens(trial.TokenStageAgent, "m", &runapi.TokenCounts{Prompt: 2_000_000, Completion: 100_000})
	dir := writeOutDir(t, r)
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, []byte("[model]\nmodel = \"m\"\n[prices.m]\ninput = 1.5\noutput = 10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := Run([]string{"report", dir, "--format", "md", "--config", cfg}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	// 2M in at 1.5 + 0.1M out at 10 = 4 USD.
	if !strings.Contains(out.String(), "| spec | openai:m | 1 | 2000000 | 100000 | 4.0000 | 4.0000 |") {
		t.Errorf("no priced tokens row:\n%s", out.String())
	}
	bad := filepath.Join(t.TempDir(), "bad.toml")
	if err := os.WriteFile(bad, []byte("[prices.m]\ninput = -1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{bad, filepath.Join(t.TempDir(), "missing.toml")} {
		out.Reset()
		errb.Reset()
		if code := Run([]string{"report", dir, "--config", file}, &out, &errb); code != 2 {
			t.Errorf("--config %s: exit %d, want 2: %s", file, code, errb.String())
		}
	}
}
