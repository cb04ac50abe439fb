// Package report turns the benchmark's run records into the paper's
// Table 1 (per policy source and agent: success, utility, exposure and
// static scores), the per-axis precision/recall charts, the failure-class
// distribution and a per-task drill-down, rendered as Markdown, JSON, a
// self-contained HTML page or a terminal table. With several trials every
// rate carries a seeded 95 % bootstrap interval over tasks (ci95) and the
// utility rates pass^k; bench --attribute's re-runs are summarised per
// source and agent (AttributionRow). Blocked attacks, spec gaps, skipped
// tasks, untraced verifiers and agents that failed while V_u passed are
// counted or listed apart. A bench --pipeline's runs add pass@k and
// pass^k per stage (StageRow), and every report with generator or model
// agent runs the report across models (ModelRow) with its figures.
//
// Build is a pure function of the records; the renderers only format the
// Report it returns, escaping every untrusted text (task and agent names,
// paths, errors) for its format (internal/termtext on terminals).
// docs/report.md says what every number means.
package report

import (
	"encoding/json"
	"time"

	"github.com/authbench/authbench/trial"
	"github.com/authbench/authbench/verdict"
)

// Options change how records are aggregated.
type Options struct {
	// TrustVerifiers keeps runs whose verifier consumed a file the agent
	// left (verifier_tampered) or was not traced completely
	// (verifier_untraced) in the verdict-based rates instead of excluding
	// them.
	TrustVerifiers bool
	// Skipped are the tasks the benches could not run, with their reasons.
	Skipped []trial.SkippedTask
	// Prices price the rows' tokens (nil: no cost is shown).
	Prices Prices
}

// Report is everything the renderers show, computed once by Build.
type Report struct {
	// TrustVerifiers echoes Options.TrustVerifiers.
	TrustVerifiers bool `json:"trust_verifiers"`
	// Runs counts the distinct runs after duplicates were dropped.
	Runs int `json:"runs"`
	// Duplicates counts records dropped because a later record of the same
	// (task, source, agent, trial) was present.
	Duplicates int `json:"duplicates"`
	// Errors counts runs that could not be carried out.
	Errors int `json:"errors"`
	// Excluded counts tampered and untraced runs left out of
	// verdict-based rates.
	Excluded int `json:"excluded"`
	// AttacksBlocked counts shortcut runs whose attack the policy
	// stopped: not failures.
	AttacksBlocked int `json:"attacks_blocked"`
	// Skipped are the tasks the benches could not run.
	Skipped []trial.SkippedTask `json:"skipped_tasks"`
	// Rows is Table 1, one row per (source, agent).
	Rows []Row `json:"table1"`
	// Failures is the failure-class distribution, one entry per row that
	// has runs.
	Failures []FailureDist `json:"failures"`
	// Attribution summarises bench --attribute per row (rows with an
	// attributed run only).
	Attribution []AttributionRow `json:"attribution,omitempty"`
	// Requests summarises run-time permission requests per row (rows
	// whose runs had a --requests decider only).
	Requests []RequestsRow `json:"permission_requests,omitempty"`
	// Stages is a bench --pipeline's table: pass@k and pass^k per stage,
	// source and agent (absent without pipeline runs).
	Stages []StageRow `json:"stages,omitempty"`
	// Models is the report across models: one row per generator and per
	// model executor (absent when no run has one).
	Models []ModelRow `json:"models,omitempty"`
	// Tasks is the drill-down: one entry per run, ordered by task, source,
	// agent and trial.
	Tasks []TaskRun `json:"tasks"`
}

// Row is one row of Table 1: a policy source driven by one agent under
// one enforcement semantics.
type Row struct {
	Source string `json:"source"`
	Agent  string `json:"agent"`
	// Semantics is the plans' enforcement semantics ("published",
	// "precise"); empty for unconstrained runs.
	Semantics string `json:"semantics,omitempty"`
	// Runs counts every run of the row, Errors those that could not be
	// carried out and Excluded the tampered runs left out of verdict-based
	// rates; Invalid counts runs whose policy was invalid or missing.
	Runs     int `json:"runs"`
	Errors   int `json:"errors"`
	Excluded int `json:"excluded"`
	Invalid  int `json:"invalid_policies"`
	// Tokens are the row's model tokens and cost; nil when no run of it
	// reported any.
	Tokens *RowTokens `json:"tokens,omitempty"`
	// AttacksBlocked counts the row's shortcut runs whose attack was
	// stopped (attack_blocked), counted apart from failures.
	AttacksBlocked int `json:"attacks_blocked"`

	// StandardSuccess is V_u's pass rate on standard tasks.
	StandardSuccess *Rate `json:"standard_success"`
	// SensitiveUtility is V_u's pass rate on sensitive tasks.
	SensitiveUtility *Rate `json:"sensitive_utility"`
	// ExposureAttack is the rate of sensitive runs whose V_a passed.
	ExposureAttack *Rate `json:"exposure_attack"`
	// ExposureTrace is the rate of sensitive runs whose trace shows a
	// successful access to a sensitive file.
	ExposureTrace *Rate `json:"exposure_trace"`

	// StaticStandard and StaticSensitive are the static scores of the
	// row's policies per set; nil for sources without a policy
	// (unconstrained) or a set without scored runs.
	StaticStandard  *Static `json:"static_standard"`
	StaticSensitive *Static `json:"static_sensitive"`
	// PlanGrantsSensitive counts the row's scored sensitive runs whose
	// enforced plan granted a sensitive file (trial.Record.
	// PlanGrantsSensitive), beside StaticSensitive's sensitive coverage,
	// which follows the published formula and cannot see it; nil for a
	// row without scored sensitive runs.
	PlanGrantsSensitive *PlanGrants `json:"plan_grants_sensitive,omitempty"`
}

// PlanGrants is how many of Runs had an enforced plan that granted a
// sensitive file (Granting).
type PlanGrants struct {
	Granting int `json:"granting"`
	Runs     int `json:"runs"`
}

// Label is the row's name in charts and text: "source / agent", the
// source followed by its semantics in brackets unless it is the default.
func (r *Row) Label() string { return sourceName(r.Source, r.Semantics) + " / " + r.Agent }

// sourceName is a source as tables show it: "spec", or "spec [precise]"
// for a semantics other than the default.
func sourceName(source, semantics string) string {
	if semantics = shownSemantics(semantics); semantics == "" {
		return source
	}
	return source + " [" + semantics + "]"
}

// shownSemantics is the semantics a label names: "" for none or the
// default. Rows and runs are told apart by it, so that no two rows of a
// table have the same label.
func shownSemantics(semantics string) string {
	if semantics == DefaultSemantics {
		return ""
	}
	return semantics
}

// Rate is a macro mean in [0, 1]: the mean over tasks of each task's mean
// over its trials.
type Rate struct {
	Value float64 `json:"value"`
	// Tasks and Runs count what the mean was taken over.
	Tasks int `json:"tasks"`
	Runs  int `json:"runs"`
	// CI95 is the 95 % bootstrap interval over tasks [low, high], when
	// tasks have several trials (docs/report.md, "Uncertainty").
	CI95 *[2]float64 `json:"ci95,omitempty"`
	// PassK is pass^k of a utility rate with K trials: the macro mean
	// over tasks of the chance that K trials all pass.
	PassK *float64 `json:"pass_k,omitempty"`
	K     int      `json:"k,omitempty"`
}

// Static holds macro means of the static score per axis for one set.
type Static struct {
	Read    Axis `json:"read"`
	Write   Axis `json:"write"`
	Execute Axis `json:"execute"`
	// Network is the network axis's macro score over the runs of tasks
	// whose spec scores it (docs/scoring.md); nil when there are none.
	Network *Axis `json:"network,omitempty"`
	// SensitiveCoverage is the macro mean of sensitive_exposure_coverage
	// (the share of sensitive entries the policies grant: lower is
	// better) over the runs that have one; nil when none has.
	SensitiveCoverage *float64 `json:"sensitive_coverage,omitempty"`
	Tasks             int      `json:"tasks"`
	Runs              int      `json:"runs"`
}

// Axis is one axis's macro precision, recall and F1.
type Axis struct {
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
}

// FailureDist is the distribution of primary failure classes among the
// failed runs of one row (errors, excluded runs and blocked attacks left
// out).
type FailureDist struct {
	Source    string `json:"source"`
	Agent     string `json:"agent"`
	Semantics string `json:"semantics,omitempty"`
	// Failed counts the failed runs; Classes has one entry per class in
	// a fixed order (ClassOrder), zero counts included.
	Failed  int          `json:"failed"`
	Classes []ClassShare `json:"classes"`
}

// Label is the distribution's name in charts and text, as Row.Label.
func (f *FailureDist) Label() string { return sourceName(f.Source, f.Semantics) + " / " + f.Agent }

// ClassShare is how many failed runs had Class as their primary class,
// and their share of the failed runs.
type ClassShare struct {
	Class verdict.Class `json:"class"`
	Count int           `json:"count"`
	Share float64       `json:"share"`
}

// TaskRun is one run in the drill-down: the record's fields a report
// shows, embedded from trial.Record's groups (the same JSON keys), and
// what the report makes of the run. Findings.TamperedVerifiers is left
// empty (the drill-down names the files).
type TaskRun struct {
	trial.Identity
	trial.Verdicts
	// Success: V_u passed and, on a sensitive task, nothing was exposed
	// (Succeeded); false for a run that could not be carried out.
	Success bool `json:"success"`
	// Classes are the record's failure labels (omitted when none).
	Classes []verdict.Class `json:"classes,omitempty"`
	trial.Diagnosis
	// ExposureAccess is the record's: the first sensitive access of an
	// exposed run ("op axis path": the exposed file), or "attack
	// verifier" when only V_a showed it.
	ExposureAccess string `json:"exposure_access,omitempty"`
	// PolicyError and Generation are the record's: why the run's policy
	// was invalid, and how a generated policy (a gen: source) came out.
	PolicyError string            `json:"policy_error,omitempty"`
	Generation  *trial.Generation `json:"generation,omitempty"`
	trial.Findings
	// Excluded: the run is left out of verdict-based rates
	// (trial.Record.Excluded).
	Excluded bool `json:"excluded,omitempty"`
	trial.RunEnd
	// Dir and Finished are the record's (Dir omitted when empty).
	Dir      string    `json:"dir,omitempty"`
	Finished time.Time `json:"finished"`
}

// MarshalJSON writes the entry as its fields say, with null utility,
// attack and agent_exit_code for a run whose agent did not run, as its
// record (trial.Record.MarshalJSON).
func (t TaskRun) MarshalJSON() ([]byte, error) {
	type plain TaskRun
	if !t.AgentDidNotRun {
		return json.Marshal(plain(t))
	}
	return json.Marshal(struct {
		plain
		trial.NullVerdicts
	}{plain: plain(t)})
}
