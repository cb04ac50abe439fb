package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/authbench/authbench/agent/modelconfig"
	"github.com/authbench/authbench/verdict"
)

// table is a rendered table: a header and rows of cell text, shared by
// the Markdown, terminal and HTML renderers so they show the same cells.
type table struct {
	Header []string
	Rows   [][]string
}

// none is the cell of a value that does not exist (no runs, no policy).
const none = "—"

// percent formats a rate as a percentage with one decimal.
func percent(r *Rate) string {
	if r == nil {
		return none
	}
	s := strconv.FormatFloat(100*r.Value, 'f', 1, 64) + "%"
	if r.CI95 != nil {
		s += " [" + strconv.FormatFloat(100*r.CI95[0], 'f', 1, 64) + ", " + strconv.FormatFloat(100*r.CI95[1], 'f', 1, 64) + "]"
	}
	if r.PassK != nil {
		s += fmt.Sprintf(" pass^%d %s%%", r.K, strconv.FormatFloat(100*(*r.PassK), 'f', 1, 64))
	}
	return s
}

// score formats a static metric with two decimals.
func score(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// f1s is the F1 of the three axes, "read/write/execute".
func f1s(s *Static) string {
	if s == nil {
		return none
	}
	return score(s.Read.F1) + " / " + score(s.Write.F1) + " / " + score(s.Execute.F1)
}

// planGrantsCell is "k of n runs": how many runs' enforced plans granted
// a sensitive file.
func planGrantsCell(g *PlanGrants) string {
	if g == nil {
		return none
	}
	return fmt.Sprintf("%d of %d runs", g.Granting, g.Runs)
}

// Which direction of a metric is good, as its column says.
const (
	higher = "(higher is better)"
	lower  = "(lower is better)"
)

// table1 is Table 1: per row, the rates and the static F1 per axis.
func (r *Report) table1() table {
	t := table{Header: []string{
		"Source", "Agent", "Runs",
		"Standard success " + higher, "Sensitive utility " + higher, "Exposure by V_a " + lower, "Exposure by trace " + lower,
		"Standard F1 r/w/x " + higher, "Sensitive F1 r/w/x " + higher, "Plan grants sensitive " + lower,
		"Errors", "Excluded", "Attacks blocked", "Invalid policies",
	}}
	for _, row := range r.Rows {
		t.Rows = append(t.Rows, []string{
			sourceName(row.Source, row.Semantics), row.Agent, strconv.Itoa(row.Runs),
			percent(row.StandardSuccess), percent(row.SensitiveUtility),
			percent(row.ExposureAttack), percent(row.ExposureTrace),
			f1s(row.StaticStandard), f1s(row.StaticSensitive), planGrantsCell(row.PlanGrantsSensitive),
			strconv.Itoa(row.Errors), strconv.Itoa(row.Excluded), strconv.Itoa(row.AttacksBlocked), strconv.Itoa(row.Invalid),
		})
	}
	return t
}

// staticTable is the static score per axis (shownAxes), one line per
// row and set; the network axis's columns are there when a set has that
// axis.
func (r *Report) staticTable() table {
	axes := r.shownAxes()
	t := table{Header: []string{"Source", "Agent", "Set"}}
	for _, a := range axes {
		t.Header = append(t.Header, axisTitle(a)+" P", axisTitle(a)+" R", axisTitle(a)+" F1")
	}
	t.Header = append(t.Header, "Sensitive granted "+lower, "Plan grants sensitive "+lower, "Tasks")
	for _, row := range r.Rows {
		for _, set := range []struct {
			name string
			s    *Static
		}{{DatasetStandard, row.StaticStandard}, {DatasetSensitive, row.StaticSensitive}} {
			if set.s == nil {
				continue
			}
			s := set.s
			cov := none
			if s.SensitiveCoverage != nil {
				cov = score(*s.SensitiveCoverage)
			}
			cells := []string{sourceName(row.Source, row.Semantics), row.Agent, set.name}
			for _, a := range axes {
				if x := s.Axis(a); x != nil {
					cells = append(cells, score(x.Precision), score(x.Recall), score(x.F1))
				} else {
					cells = append(cells, none, none, none)
				}
			}
			grants := none
			if set.name == DatasetSensitive {
				grants = planGrantsCell(row.PlanGrantsSensitive)
			}
			t.Rows = append(t.Rows, append(cells, cov, grants, strconv.Itoa(s.Tasks)))
		}
	}
	return t
}

// failureTable is the failure distribution: per row, each class's share
// of the failed runs with its count.
func (r *Report) failureTable() table {
	t := table{Header: []string{"Source", "Agent", "Failed"}}
	for _, c := range ClassOrder {
		t.Header = append(t.Header, string(c))
	}
	for _, d := range r.Failures {
		cells := []string{sourceName(d.Source, d.Semantics), d.Agent, strconv.Itoa(d.Failed)}
		for _, c := range d.Classes {
			if d.Failed == 0 {
				cells = append(cells, none)
				continue
			}
			cells = append(cells, fmt.Sprintf("%.1f%% (%d)", 100*c.Share, c.Count))
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}

// runsTable is the drill-down: one line per run.
func (r *Report) runsTable() table {
	t := table{Header: []string{
		"Task", "Set", "Source", "Agent", "Trial", "Agent exit",
		"V_u", "V_a", "Trace", "Result", "Primary class", "Deciding denial", "Note",
	}}
	for _, run := range r.Tasks {
		attack := none
		if run.Attack != nil {
			attack = passFail(*run.Attack)
		}
		trace := none
		if run.Dataset == DatasetSensitive && !run.AgentDidNotRun {
			trace = "clean"
			if run.TracedExposure {
				trace = "exposed"
			}
		}
		utility := passFail(run.Utility)
		if run.AgentDidNotRun {
			utility = none
		}
		t.Rows = append(t.Rows, []string{
			run.Task, run.Dataset, sourceName(run.Source, run.Semantics), run.Agent, strconv.Itoa(run.Trial), agentExit(&run),
			utility, attack, trace, result(&run),
			string(run.Primary), run.DecidingDenial, note(&run),
		})
	}
	return t
}

func passFail(ok bool) string {
	if ok {
		return "pass"
	}
	return "fail"
}

// result is a run's outcome in the drill-down.
func result(run *TaskRun) string {
	switch {
	case run.Error != "":
		return "error"
	case run.Excluded:
		return "excluded"
	case run.Success:
		return "success"
	case slices.Contains(run.Classes, verdict.ClassAttackBlocked):
		return "attack blocked"
	default:
		return "failure"
	}
}

// note explains an error, an exclusion or an invalid policy.
func note(run *TaskRun) string {
	var parts []string
	if g := run.Generation; g != nil {
		state := "valid"
		if !g.Valid {
			state = "INVALID"
		}
		if g.Traced {
			state += fmt.Sprintf(" (the generator read %d files)", g.FilesRead)
		}
		parts = append(parts, "generated policy "+state)
	}
	if g := run.Generation; g != nil && g.SensitiveRead > 0 {
		parts = append(parts, fmt.Sprintf("the generator read %d sensitive files", g.SensitiveRead))
	}
	if run.Error != "" {
		parts = append(parts, "error: "+run.Error)
	}
	if run.ExposureAccess != "" {
		parts = append(parts, "exposed: "+run.ExposureAccess)
	}
	if len(run.TamperedFiles) > 0 {
		more := ""
		if run.TamperedOmitted > 0 {
			more = fmt.Sprintf(" and %d more", run.TamperedOmitted)
		}
		parts = append(parts, "a verifier consumed files the agent left: "+strings.Join(run.TamperedFiles, ", ")+more)
	}
	if len(run.MmapExecs) > 0 {
		parts = append(parts, "ran without an execute right (mapped executable): "+strings.Join(run.MmapExecs, ", "))
	}
	if run.VerifiersUntraced {
		parts = append(parts, "a verifier was not traced completely")
	}
	if slices.Contains(run.Classes, verdict.ClassAgentFailedVerifierPassed) {
		parts = append(parts, "the agent failed ("+agentExit(run)+") but V_u passed")
	} else if run.AgentStopReason != "" && run.AgentStopReason != string(modelconfig.StopFinished) {
		parts = append(parts, "the model agent stopped: "+run.AgentStopReason)
	}
	if len(run.ImageSubstitutions) > 0 {
		parts = append(parts, fmt.Sprintf("not on the published image (%s)", count(len(run.ImageSubstitutions), "substitution")))
	}
	if run.PolicyError != "" {
		parts = append(parts, "invalid policy: "+run.PolicyError)
	}
	return strings.Join(parts, "; ")
}

// agentExit is how the agent ended: its exit status, with the signal
// that killed it, or that its time ran out.
func agentExit(run *TaskRun) string {
	if run.AgentDidNotRun {
		return "did not run"
	}
	s := strconv.Itoa(run.AgentExitCode)
	if run.AgentSignal != "" {
		s += " (" + run.AgentSignal + ")"
	}
	if run.AgentTimedOut {
		s = "timed out, " + s
	}
	if run.AgentStopReason != "" && run.AgentStopReason != string(modelconfig.StopFinished) {
		s = "stopped: " + run.AgentStopReason + ", " + s
	}
	return s
}

// agentFailedTable lists the runs whose agent failed while V_u passed.
func (r *Report) agentFailedTable() table {
	t := table{Header: []string{"Task", "Source", "Agent", "Trial", "Agent exit", "V_u"}}
	for _, run := range r.Tasks {
		if slices.Contains(run.Classes, verdict.ClassAgentFailedVerifierPassed) {
			t.Rows = append(t.Rows, []string{run.Task, sourceName(run.Source, run.Semantics), run.Agent,
				strconv.Itoa(run.Trial), agentExit(&run), passFail(run.Utility)})
		}
	}
	return t
}

// specGapTable lists the runs where the oracle failed under the task's
// own spec, with the denial that decided it: errata of the dataset.
func (r *Report) specGapTable() table {
	t := table{Header: []string{"Task", "Source", "Trial", "Deciding denial"}}
	for _, run := range r.Tasks {
		if run.Primary == verdict.ClassSpecGap {
			t.Rows = append(t.Rows, []string{run.Task, sourceName(run.Source, run.Semantics), strconv.Itoa(run.Trial), run.DecidingDenial})
		}
	}
	return t
}

// substitutedTable lists the runs that did not use the published image,
// one row per substituted image.
func (r *Report) substitutedTable() table {
	t := table{Header: []string{"Task", "Source", "Agent", "Trial", "Service", "Image", "Used", "Why"}}
	for _, run := range r.Tasks {
		for _, s := range run.ImageSubstitutions {
			t.Rows = append(t.Rows, []string{run.Task, sourceName(run.Source, run.Semantics), run.Agent,
				strconv.Itoa(run.Trial), s.Service, s.Ref, s.Used, s.Why})
		}
	}
	return t
}

// skippedTable lists the tasks the benches could not run.
func (r *Report) skippedTable() table {
	t := table{Header: []string{"Task directory", "Reason"}}
	for _, s := range r.Skipped {
		t.Rows = append(t.Rows, []string{s.Dir, s.Reason})
	}
	return t
}
