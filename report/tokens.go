package report

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"

	"github.com/pelletier/go-toml/v2"

	"github.com/authbench/authbench/trial"
)

// Price is a model's price in USD per million tokens.
type Price struct {
	Input  float64 `toml:"input"`
	Output float64 `toml:"output"`
}

// Prices are the price table, by model name (the model as the endpoint
// is asked for it: MODEL of openai:MODEL, st:MODEL).
type Prices map[string]Price

// ParsePrices reads the [prices] table of a config file:
//
//	[prices."gpt-5"]
//	input = 1.25   # USD per million input (prompt) tokens
//	output = 10.0  # USD per million output (completion) tokens
//
// Other tables are left to their owners; an unknown key of a price or a
// negative price is an error naming the model.
func ParsePrices(data []byte, name string) (Prices, error) {
	var doc struct {
		Prices map[string]map[string]any `toml:"prices"`
	}
	if err := toml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		return nil, fmt.Errorf("config %s: %w", name, err)
	}
	out := Prices{}
	for model, kv := range doc.Prices {
		var p Price
		for k, v := range kv {
			f, ok := number(v)
			if !ok || f < 0 {
				return nil, fmt.Errorf("config %s: prices.%q.%s: want a price in USD per million tokens, at least 0", name, model, k)
			}
			switch k {
			case "input":
				p.Input = f
			case "output":
				p.Output = f
			default:
				return nil, fmt.Errorf("config %s: prices.%q.%s: unknown key (known: input, output)", name, model, k)
			}
		}
		out[model] = p
	}
	return out, nil
}

// number is a TOML integer or float as a float.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// RowTokens are a row's model tokens: the means over its runs that
// reported tokens, and their cost where every stage's model is priced.
type RowTokens struct {
	// Runs counts the row's runs that reported tokens.
	Runs      int     `json:"runs"`
	InPerRun  float64 `json:"in_per_run"`
	OutPerRun float64 `json:"out_per_run"`
	// CostPerRun and Cost are in USD (absent when a model is unpriced);
	// Unpriced lists the models without a price.
	CostPerRun *float64 `json:"cost_per_run_usd,omitempty"`
	Cost       *float64 `json:"cost_usd,omitempty"`
	Unpriced   []string `json:"unpriced,omitempty"`
}

// unnamedModel stands in Unpriced for a stage whose model is not named.
const unnamedModel = "(unnamed)"

// rowTokens sums the tokens of runs priced by prices; nil when no run
// reported any.
func rowTokens(runs []*trial.Record, prices Prices) *RowTokens {
	t := &RowTokens{}
	var in, out int64
	cost := 0.0
	for _, r := range runs {
		if r.Tokens == nil {
			continue
		}
		t.Runs++
		in, out = in+r.Tokens.In, out+r.Tokens.Out
		for _, s := range r.Tokens.Stages {
			p, ok := prices[s.Model]
			if !ok {
				name := s.Model
				if name == "" {
					name = unnamedModel
				}
				if !slices.Contains(t.Unpriced, name) {
					t.Unpriced = append(t.Unpriced, name)
				}
				continue
			}
			cost += (float64(s.In)*p.Input + float64(s.Out)*p.Output) / 1e6
		}
	}
	if t.Runs == 0 {
		return nil
	}
	slices.Sort(t.Unpriced)
	t.InPerRun, t.OutPerRun = float64(in)/float64(t.Runs), float64(out)/float64(t.Runs)
	if len(t.Unpriced) == 0 {
		per := cost / float64(t.Runs)
		t.CostPerRun, t.Cost = &per, &cost
	}
	return t
}

// tokensTable is the tokens and cost per row, for the rows whose runs
// reported tokens.
func (r *Report) tokensTable() table {
	t := table{Header: []string{"Source", "Agent", "Runs with tokens", "Tokens in per run", "Tokens out per run", "Cost per run (USD)", "Cost (USD)"}}
	for _, row := range r.Rows {
		tk := row.Tokens
		if tk == nil {
			continue
		}
		perRun, total := "unpriced", "unpriced"
		if tk.CostPerRun != nil {
			perRun, total = strconv.FormatFloat(*tk.CostPerRun, 'f', 4, 64), strconv.FormatFloat(*tk.Cost, 'f', 4, 64)
		}
		t.Rows = append(t.Rows, []string{sourceName(row.Source, row.Semantics), row.Agent, strconv.Itoa(tk.Runs),
			strconv.FormatFloat(tk.InPerRun, 'f', 0, 64), strconv.FormatFloat(tk.OutPerRun, 'f', 0, 64), perRun, total})
	}
	return t
}

// tokensIntro introduces the tokens section.
const tokensIntro = "Model tokens as the endpoints reported them, per run of a row (generator stages and model agent summed), " +
	"over the runs that reported any; cost from the config file's [prices] table (USD per million tokens), " +
	"\"unpriced\" when a model of the row has no price."
