package report

import (
	"fmt"
	"html"
	"html/template"
	"strings"
)

// Table is a rendered table of the report as its HTML page shows it: a
// header and rows of cell text, control characters escaped (the page's
// template escapes HTML). A viewer shows it as `report --format html` does.
type Table struct {
	ID, Title, Intro string
	Header           []string
	Rows             [][]string
}

// Figure is a chart of the report as its HTML page inlines it: an SVG
// document from the plotting library (which escapes its text), labelled
// with its title for assistive technology.
type Figure struct {
	ID, Title, Caption string
	SVG                template.HTML
}

// Summary is the report's one-line summary (runs, errors, exclusions).
func (r *Report) Summary() string { return r.summary() }

// Tables are the tables the HTML page shows before its figures (Table 1,
// the static scores per axis) and the failure distribution after them.
func (r *Report) Tables() []Table {
	mk := func(id, title, intro string, t table) Table {
		t = htmlTable(t)
		return Table{ID: id, Title: title, Intro: intro, Header: t.Header, Rows: t.Rows}
	}
	return []Table{
		mk("table1", "Table 1", table1Intro, r.table1()),
		mk("static", "Static scores per axis", staticIntro, r.staticTable()),
		mk("failures", "Failure distribution", failureIntro, r.failureTable()),
	}
}

// Figures are the report's charts as the HTML page inlines them.
func (r *Report) Figures() ([]Figure, error) {
	charts, err := r.charts()
	if err != nil {
		return nil, fmt.Errorf("render charts: %w", err)
	}
	out := make([]Figure, 0, len(charts))
	for _, c := range charts {
		out = append(out, Figure{ID: c.ID, Title: c.Title, Caption: c.Caption,
			SVG: template.HTML(strings.Replace(c.SVG, "<svg ",
				`<svg role="img" aria-label="`+html.EscapeString(c.Title)+`" `, 1))})
	}
	return out, nil
}

// FontFace is the CSS @font-face rule of the charts' font (embedded as a
// data: URL), for a page that inlines the figures.
func FontFace() template.CSS { return template.CSS(fontFace()) }
