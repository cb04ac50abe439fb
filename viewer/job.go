package viewer

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/authbench/authbench/agent/agentname"
	"github.com/authbench/authbench/generate/genname"
	"github.com/authbench/authbench/report"
	"github.com/authbench/authbench/trial"
)

// Job is one bench out dir as the viewer shows it: its runs and the
// report built from them.
type Job struct {
	// Name is how pages name the job (the out dir's base name, made
	// unique among the jobs); Dir is the out dir.
	Name, Dir string
	// Records are the out dir's runs; Report is built from them.
	Records []trial.Record
	Report  *report.Report
	byID    map[string]int

	// figures caches the report's charts (rendering them is the costly
	// part of a job page).
	figOnce sync.Once
	figures []report.Figure
	figErr  error
}

// Figures are the job's charts, rendered once.
func (j *Job) Figures() ([]report.Figure, error) {
	j.figOnce.Do(func() { j.figures, j.figErr = j.Report.Figures() })
	return j.figures, j.figErr
}

// NewJob builds the job of the out dir dir from its records, as `authbench
// report` builds its report (opts).
func NewJob(name, dir string, records []trial.Record, opts report.Options) *Job {
	j := &Job{Name: name, Dir: dir, Records: records, Report: report.Build(records, opts), byID: map[string]int{}}
	for i := range records {
		j.byID[records[i].Dir] = i
	}
	return j
}

// Run returns the record whose run id (its trial directory, Record.Dir)
// is id. The id is looked up, never used as a path: an id that is not a
// valid name (ValidRunID) or names no run of the job is not found.
func (j *Job) Run(id string) (*trial.Record, bool) {
	if !ValidRunID(id) {
		return nil, false
	}
	i, ok := j.byID[id]
	if !ok {
		return nil, false
	}
	return &j.Records[i], true
}

// maxRunIDBytes bounds a run id (a trial directory's name).
const maxRunIDBytes = 1024

// ValidRunID reports whether id can name a trial directory of an out
// dir: one non-empty path component, no "." or "..", no slash or
// backslash (encoded or not: ids reach here decoded), no control
// character.
func ValidRunID(id string) bool {
	if id == "" || id == "." || id == ".." || len(id) > maxRunIDBytes || strings.ContainsAny(id, `/\`) {
		return false
	}
	for _, c := range id {
		if c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

// JobNames names the out dirs dirs for pages: each its base name, with
// "#2", "#3"... after names met before.
func JobNames(dirs []string) []string {
	out := make([]string, len(dirs))
	seen := map[string]int{}
	for i, d := range dirs {
		n := filepath.Base(filepath.Clean(d))
		seen[n]++
		if seen[n] > 1 {
			n = fmt.Sprintf("%s#%d", n, seen[n])
		}
		out[i] = n
	}
	return out
}

// ModelOf is the model of a run: its agent's (openai:MODEL,
// installed:NAME:MODEL), else its generator's (gen: sources: openai:MODEL,
// st:MODEL), else "".
func ModelOf(r *trial.Record) string {
	if n, err := agentname.Parse(r.Agent); n.TakesModel() {
		if err != nil {
			return ""
		}
		return n.Model
	}
	if r.Generation != nil {
		if g, err := genname.Parse(r.Generation.Generator); err == nil && g.UsesModel() {
			return g.Model
		}
	}
	return ""
}
