package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/trial"
)

// TestAxesIterate: the static table's columns and each set's per-axis
// chart follow the axes by policy.Axis: the network axis (the fourth)
// appears where a run has it — in the sensitive set's chart here, not in
// the standard set's — and a set without it shows "-" in its columns.
func TestAxesIterate(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	net := run("a", DatasetSensitive, "gen:x", "oracle", 1)
	net.NetworkP, net.NetworkR, net.NetworkF1 = f(0.5), f(1), f(2.0/3)
	std := run("b", DatasetStandard, "gen:x", "oracle", 1)
	rep := Build([]trial.Record{net, std}, Options{})
	if got := rep.shownAxes(); !slices.Equal(got, policy.AllAxes[:]) {
		t.Fatalf("table axes %v", got)
	}
	if got := rep.shownAxes(DatasetStandard); !slices.Equal(got, policy.Axes[:]) {
		t.Errorf("standard chart axes %v", got)
	}
	tab := rep.staticTable()
	col := slices.Index(tab.Header, "Network P")
	if col < 0 || tab.Header[col+1] != "Network R" || tab.Header[col+2] != "Network F1" || tab.Header[3] != "Read P" {
		t.Fatalf("header %q", tab.Header)
	}
	cells := map[string]string{}
	for _, row := range tab.Rows {
		cells[row[2]] = row[col]
	}
	if cells[DatasetStandard] != none || cells[DatasetSensitive] != score(0.5) {
		t.Errorf("network P cells %v", cells)
	}
	charts, err := rep.charts()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range charts {
		seen[c.ID] = true
		hasNet := strings.Contains(c.SVG, "network P")
		switch c.ID {
		case "figure-sensitive-axes":
			if !hasNet || !strings.Contains(c.SVG, "execute R") {
				t.Errorf("%s: network axis %v", c.ID, hasNet)
			}
		case "figure-standard-axes":
			if hasNet || !strings.Contains(c.SVG, "read P") {
				t.Errorf("%s: network axis %v", c.ID, hasNet)
			}
		}
	}
	if !seen["figure-sensitive-axes"] || !seen["figure-standard-axes"] {
		t.Errorf("charts %v", seen)
	}
}
