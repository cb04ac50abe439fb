package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/trial"
	"github.com/authbench/authbench/verdict"
)

func TestParsePrices(t *testing.T) {
	for _, c := range []struct {
		name, doc string
		want      Prices
		err       string
	}{
		{"priced", "[model]\nmodel = \"x\"\n[prices.\"gpt-5\"]\ninput = 1.25\noutput = 10\n[prices.local]\ninput = 0\n",
			Prices{"gpt-5": {Input: 1.25, Output: 10}, "local": {}}, ""},
		{"none", "[model]\nmodel = \"x\"\n", Prices{}, ""},
		{"unknown key", "[prices.m]\ninput = 1\ncached = 0.1\n", nil, `prices."m".cached: unknown key`},
		{"negative", "[prices.m]\noutput = -1\n", nil, `prices."m".output: want a price`},
		{"string", "[prices.m]\ninput = \"1\"\n", nil, `prices."m".input: want a price`},
		{"not toml", "[prices\n", nil, "config c.toml"},
	} {
		got, err := ParsePrices([]byte(c.doc), "c.toml")
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil || len(got) != len(c.want) {
			t.Errorf("%s: %v %v", c.name, got, err)
			continue
		}
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("%s: %s = %+v, want %+v", c.name, k, got[k], v)
			}
		}
	}
}

// tokenRun is a run of source/agent with a generator's and an agent's
// tokens (nil: none).
func tokenRun(task, source, agent string, gen, exec *runapi.TokenCounts) trial.Record {
	r := trial.Record{Identity: trial.Identity{Task: task, Dataset: "standard", Source: source, Agent: agent, Trial: 1}, Classes: []verdict.Class{}}
	r.AddTokens(trial.TokenStageGenerator, "gen-model", gen)
	r.AddTokens(trial.TokenStageAgent, "exec-model", exec)
	return r
}

// TestTokensPerRow: a row's tokens are the means over its runs that
// reported tokens; its cost is priced per stage by its model, absent
// (unpriced, naming the model) when a model has no price; a row without
// tokens has none and no line in the tokens table.
func TestTokensPerRow(t *testing.T) {
	recs := []trial.Record{
		tokenRun("a", "gen:st:gen-model", "openai:exec-model", &runapi.TokenCounts{Prompt: 1000, Completion: 100}, &runapi.TokenCounts{Prompt: 3000, Completion: 300}),
		tokenRun("b", "gen:st:gen-model", "openai:exec-model", &runapi.TokenCounts{Prompt: 2000, Completion: 200}, nil),
		tokenRun("c", "gen:st:gen-model", "openai:exec-model", nil, nil),
		tokenRun("a", "spec", "oracle", nil, nil),
	}
	prices := Prices{"gen-model": {Input: 1, Output: 10}, "exec-model": {Input: 2, Output: 20}}
	rep := Build(recs, Options{Prices: prices})
	var gen, oracle *Row
	for i := range rep.Rows {
		if rep.Rows[i].Agent == "oracle" {
			oracle = &rep.Rows[i]
		} else {
			gen = &rep.Rows[i]
		}
	}
	if oracle == nil || oracle.Tokens != nil {
		t.Fatalf("the oracle row's tokens: %+v", oracle)
	}
	tk := gen.Tokens
	if tk == nil || tk.Runs != 2 || tk.InPerRun != 3000 || tk.OutPerRun != 300 {
		t.Fatalf("tokens %+v, want 2 runs, 3000 in and 300 out per run", tk)
	}
	// gen: 3000 in, 300 out at 1/10 per M = 0.006; exec: 3000 in, 300 out at 2/20 = 0.012.
	if tk.Cost == nil || !near(*tk.Cost, 0.018) || !near(*tk.CostPerRun, 0.009) || tk.Unpriced != nil {
		t.Errorf("cost %v per run %v unpriced %v, want 0.018 and 0.009", tk.Cost, tk.CostPerRun, tk.Unpriced)
	}
	tab := rep.tokensTable()
	if len(tab.Rows) != 1 || tab.Rows[0][3] != "3000" || tab.Rows[0][4] != "300" || tab.Rows[0][5] != "0.0090" || tab.Rows[0][6] != "0.0180" {
		t.Errorf("tokens table %v", tab.Rows)
	}

	delete(prices, "exec-model")
	rep = Build(recs, Options{Prices: prices})
	for _, row := range rep.Rows {
		if row.Tokens != nil && (row.Tokens.Cost != nil || len(row.Tokens.Unpriced) != 1 || row.Tokens.Unpriced[0] != "exec-model") {
			t.Errorf("partly priced row %+v: want no cost, exec-model unpriced", row.Tokens)
		}
	}
	if cells := rep.tokensTable().Rows[0]; cells[5] != "unpriced" {
		t.Errorf("partly priced cells %v", cells)
	}
	var md, text, html bytes.Buffer
	if err := rep.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := rep.HTML(&html); err != nil {
		t.Fatal(err)
	}
	if err := rep.Table1Text(&text); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"markdown": md.String(), "text": text.String(), "html": html.String()} {
		if !strings.Contains(out, "Tokens and cost") || !strings.Contains(out, "3000") {
			t.Errorf("%s report has no tokens section:\n%s", name, out)
		}
	}
}
