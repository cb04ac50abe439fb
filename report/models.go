package report

import (
	"cmp"
	"fmt"
	"image/color"
	"slices"
	"strconv"
	"strings"

	"github.com/authbench/authbench/agent/agentname"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/trial"
	"github.com/authbench/authbench/verdict"
)

// Roles of a model in the report across models.
const (
	RoleGenerator = "generator"
	RoleExecutor  = "executor"
)

// ModelRow is one model of the report across models: a generator (a gen:
// source's generator) or an executor (a model agent), aggregated as a
// Table 1 row of all its runs.
type ModelRow struct {
	Role  string `json:"role"`
	Model string `json:"model"`
	// Row aggregates the model's runs: a generator's static scores are
	// those of its policies (a pipeline's generation attempts when there
	// are any), its rates those of the runs under its policies; an
	// executor's are those of all its runs.
	Row Row `json:"row"`
	// Failures is the primary-class distribution of its failed runs over
	// ModelClassOrder (invalid_policy included: a generator that gave no
	// valid policy fails its replays with that class).
	Failures FailureDist `json:"failures"`
}

// ModelClassOrder is the failure classes of the per-model distribution:
// ClassOrder with invalid_policy before unclassified.
var ModelClassOrder = append(slices.Clone(ClassOrder[:len(ClassOrder)-1]), verdict.ClassInvalidPolicy, ClassUnclassified)

// invalidPolicyColor colours invalid_policy in the per-model chart: a
// light colour no class of classColors has, under which the segment's
// count (black) stays legible.
var invalidPolicyColor = color.RGBA{0xff, 0xbb, 0x78, 0xff}

// generatorOf is the generator of a gen: source ("" for another).
func generatorOf(source string) string {
	k, arg, ok := runapi.KindOfSource(source)
	if !ok || k.Name != runapi.SourceGenPrefix {
		return ""
	}
	return arg
}

// isExecutor reports whether the agent is a model agent (openai:MODEL,
// installed:NAME:MODEL).
func isExecutor(agent string) bool {
	n, err := agentname.Parse(agent)
	return n.TakesModel() && err == nil
}

// modelRows builds the report across models: one row per generator and
// per model executor, generators first, each in name order.
func modelRows(runs []trial.Record, opts Options) []ModelRow {
	type key struct{ role, model string }
	staticRuns, verdictRuns := map[key][]*trial.Record{}, map[key][]*trial.Record{}
	for i := range runs {
		r := &runs[i]
		if g := generatorOf(r.Source); g != "" {
			k := key{RoleGenerator, g}
			staticRuns[k] = append(staticRuns[k], r)
			if r.Agent != runapi.AgentNone {
				verdictRuns[k] = append(verdictRuns[k], r)
			}
		}
		if isExecutor(r.Agent) {
			k := key{RoleExecutor, r.Agent}
			verdictRuns[k] = append(verdictRuns[k], r)
		}
	}
	var out []ModelRow
	for k, static := range staticRuns {
		out = append(out, modelRow(k.role, k.model, generationAttempts(static), verdictRuns[k], opts))
	}
	for k, v := range verdictRuns {
		if k.role == RoleExecutor {
			out = append(out, modelRow(k.role, k.model, v, v, opts))
		}
	}
	slices.SortFunc(out, func(a, b ModelRow) int {
		return cmp.Or(cmp.Compare(roleRank(a.Role), roleRank(b.Role)), cmp.Compare(a.Model, b.Model))
	})
	return out
}

func roleRank(role string) int {
	if role == RoleGenerator {
		return 0
	}
	return 1
}

// generationAttempts are a pipeline's generation attempts among a
// generator's runs when it has any (each policy scored once), else all.
func generationAttempts(runs []*trial.Record) []*trial.Record {
	var gen []*trial.Record
	for _, r := range runs {
		if r.Agent == runapi.AgentNone {
			gen = append(gen, r)
		}
	}
	if len(gen) == 0 {
		return runs
	}
	return gen
}

func modelRow(role, model string, static, verdicts []*trial.Record, opts Options) ModelRow {
	g := rowGroup{source: role, agent: model, runs: verdicts}
	row := buildRow(g, opts)
	if role == RoleGenerator {
		st := buildRow(rowGroup{source: role, agent: model, runs: static}, opts)
		row.StaticStandard, row.StaticSensitive, row.Invalid = st.StaticStandard, st.StaticSensitive, st.Invalid
		all := append(slices.Clone(verdicts), static...)
		slices.SortFunc(all, func(a, b *trial.Record) int { return strings.Compare(a.Dir, b.Dir) })
		all = slices.CompactFunc(all, func(a, b *trial.Record) bool { return a == b })
		row.Tokens = rowTokens(all, opts.Prices)
	}
	// A model's runs mix sources (an executor's unconstrained, generated
	// and spec runs): its rates are plain macro means, without the
	// intervals and pass^k over "trials" that are no trials of one row.
	for _, rate := range []*Rate{row.StandardSuccess, row.SensitiveUtility, row.ExposureAttack, row.ExposureTrace} {
		if rate != nil {
			rate.CI95, rate.PassK, rate.K = nil, nil, 0
		}
	}
	return ModelRow{Role: role, Model: model, Row: row, Failures: modelFailures(g, opts)}
}

// modelFailures is failureDist over ModelClassOrder.
func modelFailures(g rowGroup, opts Options) FailureDist {
	d := FailureDist{Source: g.source, Agent: g.agent}
	counts := map[verdict.Class]int{}
	for _, r := range g.runs {
		if !verdictCounts(r, opts) || Succeeded(r) || r.Has(verdict.ClassAttackBlocked) {
			continue
		}
		d.Failed++
		class := r.Primary
		if !slices.Contains(ModelClassOrder, class) {
			class = ClassUnclassified
		}
		counts[class]++
	}
	d.Classes = classShares(counts, d.Failed, ModelClassOrder)
	return d
}

// modelsTable is the report across models.
func (r *Report) modelsTable() table {
	t := table{Header: []string{"Role", "Model", "Runs", "Errors", "Invalid policies", "Standard success", "Sensitive utility",
		"Exposure (trace)", "Static F1 standard (r/w/x)", "Static F1 sensitive (r/w/x)", "Failed", "Tokens in per run", "Tokens out per run"}}
	for _, m := range r.Models {
		in, out := "—", "—"
		if tk := m.Row.Tokens; tk != nil {
			in, out = strconv.FormatFloat(tk.InPerRun, 'f', 0, 64), strconv.FormatFloat(tk.OutPerRun, 'f', 0, 64)
		}
		t.Rows = append(t.Rows, []string{m.Role, m.Model, strconv.Itoa(m.Row.Runs), strconv.Itoa(m.Row.Errors), strconv.Itoa(m.Row.Invalid),
			percent(m.Row.StandardSuccess), percent(m.Row.SensitiveUtility), percent(m.Row.ExposureTrace),
			f1s(m.Row.StaticStandard), f1s(m.Row.StaticSensitive), strconv.Itoa(m.Failures.Failed), in, out})
	}
	return t
}

// modelsIntro introduces the report across models.
const modelsIntro = "One row per generator (its policies' static scores; rates of the runs under them) and per model executor (all its runs). " +
	"A generator that timed out, refused or answered no valid policy counts as the published pipeline counts it: " +
	"the attempt is an invalid policy scored 0 on every axis, and a replay with no valid attempt does not run and fails as invalid_policy. " +
	"An executor that timed out or refused fails its run (the utility verifier decides). Runs that could not be carried out are counted apart."

// modelCharts are the figures across models: per generator the per-axis
// precision and recall on standard (figure 4) and sensitive (figure 5)
// tasks, and the failure distribution per model (figure 6).
func (r *Report) modelCharts() ([]chart, error) {
	if len(r.Models) == 0 {
		return nil, nil
	}
	var gens Report
	var dists []FailureDist
	for _, m := range r.Models {
		row := m.Row
		row.Source, row.Agent, row.Semantics = m.Role, m.Model, ""
		if m.Role == RoleGenerator {
			gens.Rows = append(gens.Rows, row)
		}
		if m.Failures.Failed > 0 {
			d := m.Failures
			d.Semantics = ""
			dists = append(dists, d)
		}
	}
	var out []chart
	for _, set := range []struct{ id, dataset, title string }{
		{"figure-models-standard-axes", DatasetStandard, "Per-axis precision and recall per generator, standard tasks"},
		{"figure-models-sensitive-axes", DatasetSensitive, "Per-axis precision and recall per generator, sensitive tasks"},
	} {
		svg, err := gens.axisChart(set.dataset, set.title)
		if err != nil {
			return nil, fmt.Errorf("chart %s: %w", set.id, err)
		}
		if svg != "" {
			out = append(out, chart{ID: set.id, Title: set.title, SVG: svg,
				Caption: "P = precision, R = recall of each generator's policies, macro means over tasks; an invalid policy counts 0."})
		}
	}
	if len(dists) > 0 {
		svg, err := shareChart("Failure distribution per model (primary class)", dists, ModelClassOrder)
		if err != nil {
			return nil, fmt.Errorf("chart per-model failures: %w", err)
		}
		out = append(out, chart{ID: "figure-models-failures", Title: "Failure distribution per model", SVG: svg,
			Caption: "Share of each primary failure class among each model's failed runs; invalid_policy: no valid generated policy."})
	}
	return out, nil
}
