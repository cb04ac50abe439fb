package report

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/authbench/authbench/trial"
)

// AttributionRow summarises bench --attribute for one row of Table 1:
// how many of its failed runs a re-run with the deciding permission added
// confirmed, and which permissions flipped runs.
type AttributionRow struct {
	Source    string `json:"source"`
	Agent     string `json:"agent"`
	Semantics string `json:"semantics,omitempty"`
	// Failed counts the row's failed runs (errors and excluded left out);
	// Attributed those re-run, Confirmed those a re-run passed, and
	// Unattributable those with no permission reason (never re-run).
	Failed         int `json:"failed"`
	Attributed     int `json:"attributed"`
	Confirmed      int `json:"confirmed"`
	Unattributable int `json:"unattributable"`
	// Share is Confirmed / Failed.
	Share float64 `json:"share_confirmed"`
	// RerunS is the wall time the re-runs took.
	RerunS float64 `json:"rerun_s"`
	// Flipped are the permissions of the confirmed attributions, with how
	// many runs each flipped, most first.
	Flipped []PermissionCount `json:"flipped"`
}

// PermissionCount is a permission ("axis path") and how many runs it
// flipped.
type PermissionCount struct {
	Permission string `json:"permission"`
	Runs       int    `json:"runs"`
}

// attributionRow is the attribution summary of a row, ok false when none
// of its runs was attributed.
func attributionRow(g rowGroup, opts Options) (AttributionRow, bool) {
	a := AttributionRow{Source: g.source, Agent: g.agent, Semantics: g.semantics, Flipped: []PermissionCount{}}
	seen := false
	flipped := map[string]int{}
	for _, r := range g.runs {
		if !verdictCounts(r, opts) || Succeeded(r) {
			continue
		}
		a.Failed++
		at := r.Attribution
		if at == nil {
			continue
		}
		seen = true
		if at.Unattributable != "" {
			a.Unattributable++
			continue
		}
		a.Attributed++
		a.RerunS += at.RerunS
		if at.Confirmed {
			a.Confirmed++
			for _, p := range at.Permissions {
				flipped[p]++
			}
		}
	}
	if a.Failed > 0 {
		a.Share = float64(a.Confirmed) / float64(a.Failed)
	}
	for p, n := range flipped {
		a.Flipped = append(a.Flipped, PermissionCount{Permission: p, Runs: n})
	}
	slices.SortFunc(a.Flipped, func(x, y PermissionCount) int {
		return cmp.Or(cmp.Compare(y.Runs, x.Runs), strings.Compare(x.Permission, y.Permission))
	})
	return a, seen
}

// attributionTable shows, per row, the share of failed runs attributed
// and confirmed, and the permissions that flipped runs.
func (r *Report) attributionTable() table {
	t := table{Header: []string{"Source", "Agent", "Failed", "Re-run", "Confirmed", "Unattributable", "Re-run time", "Permissions that flipped runs"}}
	for _, a := range r.Attribution {
		var flips []string
		for _, f := range a.Flipped {
			flips = append(flips, fmt.Sprintf("%s (%d)", f.Permission, f.Runs))
		}
		t.Rows = append(t.Rows, []string{
			sourceName(a.Source, a.Semantics), a.Agent, strconv.Itoa(a.Failed), strconv.Itoa(a.Attributed),
			fmt.Sprintf("%.1f%% (%d)", 100*a.Share, a.Confirmed), strconv.Itoa(a.Unattributable),
			strconv.FormatFloat(a.RerunS, 'f', 1, 64) + " s", strings.Join(flips, ", "),
		})
	}
	return t
}

var attributionIntro = "bench --attribute re-ran each failed run with its deciding denial's permission added " +
	"(and the next one's, up to " + strconv.Itoa(trial.MaxAttributionRounds) + " re-runs): Confirmed is the share of failed runs a re-run passed, " +
	"Unattributable the runs that failed for no permission reason (never re-run)."
