package viewer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/authbench/authbench/netproxy/netpolicy"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/trial"
	"github.com/authbench/authbench/verdict"
)

// RunPage is the view model of one run's page.
type RunPage struct {
	// Job names the run's job; Record is the run; Model its model (ModelOf).
	Job    string
	Record *trial.Record
	Model  string
	// Policy and Spec are the documents as stored; Diff compares them per
	// axis (policy.DiffPolicy), absent when either does not parse.
	Policy, Spec Section
	Diff         []policy.AxisDiff
	// Result is the task run's record (authbench/result.json);
	// ResultErr says why it is absent.
	Result    *runapi.TaskResult
	ResultErr string
	// Plan is plan.json; Widenings where it grants more than the policy.
	Plan      Section
	Widenings []policy.Widening
	// Denials are the run's denials; Exposure its traced sensitive
	// accesses ("op axis path (pattern P)").
	Denials  []DenialRow
	Exposure []string
	// Network are the connection attempts (the first maxNetworkEvents),
	// NetworkSection a note on them.
	Network        []netpolicy.Event
	NetworkSection Section
	// Trajectory is the agent's ATIF trajectory, TrajectorySection a note
	// when there is none.
	Trajectory        *Trajectory
	TrajectorySection Section
	// GenTrajectory is a model generator's (gen: sources), when the trial
	// keeps one.
	GenTrajectory        *Trajectory
	GenTrajectorySection Section
	// Logs are the verifiers' and the agent's output.
	Logs []LogView
}

// Section is one file as a page shows it: its text (cut when long), or a
// note why it is not there.
type Section struct {
	Text string
	Note string
}

// DenialRow is one denial of the run; Deciding marks the one behind its
// primary class.
type DenialRow struct {
	Text     string
	Errno    string
	Count    int
	Real     string
	Deciding bool
}

// LogView is one log of the run (the agent's output, the verifiers').
type LogView struct {
	Title string
	Section
}

// Trajectory is what a run page shows of an ATIF trajectory.
type Trajectory struct {
	Agent, Model string
	Steps        []TrajectoryStep
}

// TrajectoryStep is one ATIF step: its message, tool calls and results.
type TrajectoryStep struct {
	ID              int
	Source, Message string
	Reasoning       string
	Calls           []string
	Results         []string
}

// atif is the part of an ATIF document the viewer reads.
type atif struct {
	Agent struct {
		Name      string `json:"name"`
		ModelName string `json:"model_name"`
	} `json:"agent"`
	Steps []struct {
		StepID    int    `json:"step_id"`
		Source    string `json:"source"`
		Message   string `json:"message"`
		Reasoning string `json:"reasoning_content"`
		ToolCalls []struct {
			Name string          `json:"function_name"`
			Args json.RawMessage `json:"arguments"`
		} `json:"tool_calls"`
		Observation *struct {
			Results []struct {
				Content string `json:"content"`
			} `json:"results"`
		} `json:"observation"`
	} `json:"steps"`
}

// maxNetworkEvents bounds the network attempts a page lists.
const maxNetworkEvents = 5000

// NewRunPage builds the page of run r of job from its files.
func NewRunPage(job string, r *trial.Record, files RunFiles) *RunPage {
	p := &RunPage{Job: job, Record: r, Model: ModelOf(r)}
	p.Policy = jsonSection(files[filePolicy], policyMissing(r.Source))
	p.Spec = jsonSection(files[specKey], "")
	p.Plan = jsonSection(files[filePlan], "no plan (the unconstrained row has none)")
	p.diff(files)
	p.result(files[fileTaskResult])
	p.network(files[fileNetwork])
	p.Trajectory, p.TrajectorySection = readTrajectory(files[fileTrajectory], "no trajectory (only model agents write one)")
	if f := files[fileGenTrajectory]; !f.Missing {
		p.GenTrajectory, p.GenTrajectorySection = readTrajectory(f, "")
	}
	for _, l := range []struct{ title, name string }{
		{"Utility verifier (V_u)", fileUtilityLog}, {"Attack verifier (V_a)", fileAttackLog},
		{"Agent stdout", fileAgentStdout}, {"Agent stderr", fileAgentStderr},
	} {
		p.Logs = append(p.Logs, LogView{Title: l.title, Section: section(files[l.name], "")})
	}
	return p
}

// section shows f; missing names what its absence means (default: "not
// in the trial directory").
func section(f File, missing string) Section {
	switch {
	case f.Err != "":
		return Section{Note: "could not be read: " + f.Err}
	case f.Missing && missing != "":
		return Section{Note: missing}
	case f.Missing:
		return Section{Note: "not in the trial directory"}
	case f.Cut:
		return Section{Text: string(f.Data), Note: fmt.Sprintf("cut at %d bytes", len(f.Data))}
	}
	return Section{Text: string(f.Data)}
}

// jsonSection is section for a JSON document, indented when it parses.
func jsonSection(f File, missing string) Section {
	s := section(f, missing)
	var b bytes.Buffer
	if !f.Cut && f.Data != nil && json.Indent(&b, f.Data, "", "  ") == nil {
		s.Text = b.String()
	}
	return s
}

// policyMissing says what a run of source without a policy file ran
// under.
func policyMissing(source string) string {
	switch source {
	case runapi.SourceUnconstrained:
		return "no policy: the unconstrained row runs without Landlock"
	case runapi.SourceSpec:
		return "the spec row runs under the spec's required_permissions (runapi.SpecPolicy; the plan adds implicit_permissions)"
	}
	return "not in the trial directory"
}

// diff compares the run's policy with its task's spec: the spec row's
// policy is the spec's required set, which the bench keeps no file of.
func (p *RunPage) diff(files RunFiles) {
	pf, sf := files[filePolicy], files[specKey]
	if sf.Data == nil || sf.Cut || pf.Cut || pf.Data == nil && p.Record.Source != runapi.SourceSpec {
		return
	}
	spec, err := policy.ParseSpec(sf.Data, "spec")
	if err != nil {
		p.Spec.Note = "does not parse: " + err.Error()
		return
	}
	pol := runapi.SpecPolicy(spec)
	if pf.Data != nil {
		if pol, err = policy.ParsePolicyFor(pf.Data, "policy", spec); err != nil {
			p.Policy.Note = "does not parse: " + err.Error()
			return
		}
	} else if doc, err := json.MarshalIndent(pol, "", "  "); err == nil {
		p.Policy.Text = string(doc)
	}
	p.Diff = policy.DiffPolicy(pol, spec)
}

// result reads the task run's record: denials, widenings, exposure.
func (p *RunPage) result(f File) {
	if f.Data == nil || f.Cut {
		p.ResultErr = section(f, "").Note
		return
	}
	var res runapi.TaskResult
	if err := json.Unmarshal(f.Data, &res); err != nil {
		p.ResultErr = "does not parse: " + err.Error()
		return
	}
	p.Result = &res
	p.Widenings = res.PlanWiderThanPolicy
	decided := false
	for _, d := range res.Denials {
		row := DenialRow{Text: verdict.FormatDenial(d), Errno: d.Errno, Count: d.Count, Real: d.Real}
		if !decided && row.Text == p.Record.DecidingDenial {
			row.Deciding, decided = true, true
		}
		p.Denials = append(p.Denials, row)
	}
	for _, s := range res.TracedSensitive {
		line := fmt.Sprintf("%s %s %s (pattern %s)", s.Op, s.Axis, s.Path, s.Pattern)
		if s.Via != "" {
			line += " via " + s.Via
		}
		p.Exposure = append(p.Exposure, line)
	}
}

// network reads the run's connection attempts (JSON lines).
func (p *RunPage) network(f File) {
	p.NetworkSection = section(f, "no network attempts recorded")
	p.NetworkSection.Text = ""
	if f.Data == nil {
		return
	}
	sc := bufio.NewScanner(bytes.NewReader(f.Data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	bad := 0
	for sc.Scan() {
		var ev netpolicy.Event
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			bad++
			continue
		}
		if len(p.Network) == maxNetworkEvents {
			p.NetworkSection.Note = fmt.Sprintf("the first %d attempts are listed", maxNetworkEvents)
			break
		}
		p.Network = append(p.Network, ev)
	}
	if bad > 0 {
		p.NetworkSection.Note += fmt.Sprintf(" (%d lines that are not attempts skipped)", bad)
	}
}

// readTrajectory reads an ATIF trajectory; the section says why there
// is none (missing names what its absence means).
func readTrajectory(f File, missing string) (*Trajectory, Section) {
	sec := section(f, missing)
	sec.Text = ""
	if f.Data == nil || f.Cut {
		return nil, sec
	}
	var t atif
	if err := json.Unmarshal(f.Data, &t); err != nil {
		sec.Note = "does not parse: " + err.Error()
		return nil, sec
	}
	tr := &Trajectory{Agent: t.Agent.Name, Model: t.Agent.ModelName}
	for _, s := range t.Steps {
		st := TrajectoryStep{ID: s.StepID, Source: s.Source, Message: s.Message, Reasoning: s.Reasoning}
		for _, c := range s.ToolCalls {
			st.Calls = append(st.Calls, c.Name+" "+string(c.Args))
		}
		if s.Observation != nil {
			for _, r := range s.Observation.Results {
				st.Results = append(st.Results, r.Content)
			}
		}
		tr.Steps = append(tr.Steps, st)
	}
	return tr, sec
}
