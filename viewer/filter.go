package viewer

import (
	"net/url"
	"slices"

	"github.com/authbench/authbench/trial"
)

// Filter narrows a job's runs: each set field must equal the run's
// (Class: one of its labels, or its primary class).
type Filter struct {
	Source, Agent, Model, Set, Class, Task string
}

// filterKeys are the query parameters of a Filter, in the order pages show
// them, with their labels.
var filterKeys = []struct{ key, label string }{
	{"source", "Source"}, {"agent", "Agent"}, {"model", "Model"},
	{"set", "Set"}, {"class", "Class"}, {"task", "Task"},
}

// ParseFilter reads a filter from a query (?source=spec&class=...).
func ParseFilter(q url.Values) Filter {
	return Filter{Source: q.Get("source"), Agent: q.Get("agent"), Model: q.Get("model"),
		Set: q.Get("set"), Class: q.Get("class"), Task: q.Get("task")}
}

// get is the filter's value for key.
func (f Filter) get(key string) string {
	switch key {
	case "source":
		return f.Source
	case "agent":
		return f.Agent
	case "model":
		return f.Model
	case "set":
		return f.Set
	case "class":
		return f.Class
	}
	return f.Task
}

// Match reports whether the run passes the filter.
func (f Filter) Match(r *trial.Record) bool {
	for _, k := range filterKeys {
		want := f.get(k.key)
		if want == "" {
			continue
		}
		have := runValues(r, k.key)
		if !slices.Contains(have, want) {
			return false
		}
	}
	return true
}

// runValues are the values of the run that a filter key can select.
func runValues(r *trial.Record, key string) []string {
	switch key {
	case "source":
		return []string{r.Source}
	case "agent":
		return []string{r.Agent}
	case "model":
		return []string{ModelOf(r)}
	case "set":
		return []string{r.Dataset}
	case "class":
		var out []string
		for _, c := range r.Classes {
			out = append(out, string(c))
		}
		if r.Primary != "" && !slices.Contains(r.Classes, r.Primary) {
			out = append(out, string(r.Primary))
		}
		if len(out) == 0 {
			out = append(out, classNone)
		}
		return out
	}
	return []string{r.Task}
}

// classNone is the class filter's value for runs without a label.
const classNone = "(none)"

// FilterField is one filter control of a page: its key, label, chosen
// value and the values the runs have, sorted.
type FilterField struct {
	Key, Label, Value string
	Options           []string
}

// FilterFields are the filter controls for records with f chosen.
func FilterFields(records []trial.Record, f Filter) []FilterField {
	out := make([]FilterField, 0, len(filterKeys))
	for _, k := range filterKeys {
		seen := map[string]bool{}
		var opts []string
		for i := range records {
			for _, v := range runValues(&records[i], k.key) {
				if v != "" && !seen[v] {
					seen[v] = true
					opts = append(opts, v)
				}
			}
		}
		slices.Sort(opts)
		out = append(out, FilterField{Key: k.key, Label: k.label, Value: f.get(k.key), Options: opts})
	}
	return out
}

// RunRow is one line of a job's runs table: the run's id (Record.Dir),
// identity, verdicts, primary class, error and per-axis F1.
type RunRow struct {
	ID, Task, Set, Source, Agent, Model string
	Trial                               int
	Utility, Attack, Primary, Error     string
	F1                                  [3]float64
	Scored                              bool
}

// RunRows are the rows of the runs of records that pass f.
func RunRows(records []trial.Record, f Filter) []RunRow {
	var out []RunRow
	for i := range records {
		r := &records[i]
		if !f.Match(r) {
			continue
		}
		row := RunRow{ID: r.Dir, Task: r.Task, Set: r.Dataset, Source: r.Source, Agent: r.Agent, Model: ModelOf(r),
			Trial: r.Trial, Utility: passFail(&r.Utility), Attack: attackVerdict(r.Attack), Primary: string(r.Primary), Error: r.Error,
			F1: [3]float64{r.ReadF1, r.WriteF1, r.ExecF1}, Scored: r.Scored}
		out = append(out, row)
	}
	return out
}

// attackVerdict is V_a's verdict: "attack" (it succeeded), "no attack"
// or "n/a" (a standard task).
func attackVerdict(b *bool) string {
	switch {
	case b == nil:
		return "n/a"
	case *b:
		return "attack"
	}
	return "no attack"
}

// verdictClass is the style class of a verdict: good, bad or none.
func verdictClass(v string) string {
	switch v {
	case "pass", "no attack":
		return "st-pass"
	case "fail", "attack":
		return "st-fail"
	}
	return ""
}

// passFail is "pass", "fail" or "n/a" (no verdict).
func passFail(b *bool) string {
	switch {
	case b == nil:
		return "n/a"
	case *b:
		return "pass"
	}
	return "fail"
}
