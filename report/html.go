package report

import (
	"encoding/base64"
	"fmt"
	"html"
	"html/template"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"codeberg.org/go-fonts/liberation/liberationsansregular"

	"github.com/authbench/authbench/internal/termtext"
)

// HTML writes the report as one self-contained page: its style, its font
// and its charts (inline SVG) are in the file, which loads nothing else
// and so works offline. The page is also well-formed XML.
func (r *Report) HTML(w io.Writer) error {
	charts, err := r.charts()
	if err != nil {
		return fmt.Errorf("render charts: %w", err)
	}
	models, err := r.modelCharts()
	if err != nil {
		return fmt.Errorf("render charts: %w", err)
	}
	charts = append(charts, models...)
	page := htmlPage{
		Summary: r.summary(),
		Style:   template.CSS(fontFace() + pageStyle),
		Sections: []htmlSection{
			newSection("table1", "Table 1", table1Intro, r.table1()),
			newSection("static", "Static scores per axis", staticIntro, r.staticTable()),
		},
		Failures: newSection("failures", "Failure distribution", failureIntro, r.failureTable()),
		Runs:     newSection("runs", "Runs", runsIntro, r.runsTable()),
	}
	// The runs table is the one whose cells wrap (#runs td): its short
	// columns must not.
	page.Runs.Short = shortColumns(page.Runs.Table, shortCell)
	for _, l := range r.lists() {
		page.Lists = append(page.Lists, newSection(l.id, l.title, l.intro, l.t))
	}
	for _, c := range charts {
		page.Charts = append(page.Charts, htmlChart{
			ID: c.ID, Title: c.Title, Caption: c.Caption,
			// The SVG comes from the plotting library, whose text it
			// escapes; labels are source and agent names.
			SVG: template.HTML(strings.Replace(c.SVG, "<svg ",
				`<svg role="img" aria-label="`+html.EscapeString(c.Title)+`" `, 1)),
		})
	}
	return pageTemplate().Execute(w, page)
}

// htmlTable is t with its cells' control characters escaped (termtext):
// the template escapes HTML, and the page stays well-formed XML, which
// has no control characters.
func htmlTable(t table) table {
	for _, cells := range append([][]string{t.Header}, t.Rows...) {
		for i, c := range cells {
			cells[i] = termtext.Escape(c)
		}
	}
	return t
}

type htmlPage struct {
	Summary  string
	Style    template.CSS
	Sections []htmlSection
	Charts   []htmlChart
	Failures htmlSection
	Runs     htmlSection
	Lists    []htmlSection
}

type htmlSection struct {
	ID, Title, Intro string
	Table            table
	// Short marks the columns that are never wrapped (shortColumns).
	Short []bool
}

// newSection is a page section showing t, its cells escaped (htmlTable).
func newSection(id, title, intro string, t table) htmlSection {
	return htmlSection{ID: id, Title: title, Intro: intro, Table: htmlTable(t)}
}

// shortCell is the longest cell, in characters, of a column the page
// never wraps: a set, an agent, a trial, a verdict, an exit status.
const shortCell = 24

// shortColumns marks each column of t whose cells are all at most max
// characters long: the page keeps them on one line, so that only long
// columns (paths, errors, notes) wrap, and never a short word in the
// middle.
func shortColumns(t table, max int) []bool {
	short := make([]bool, len(t.Header))
	for i := range short {
		short[i] = true
		for _, cells := range t.Rows {
			if i < len(cells) && utf8.RuneCountInString(cells[i]) > max {
				short[i] = false
				break
			}
		}
	}
	return short
}

type htmlChart struct {
	ID, Title, Caption string
	SVG                template.HTML
}

// fontFace embeds the charts' font, so that the page and its SVG text
// render with it even where no font is installed.
func fontFace() string {
	return fmt.Sprintf("@font-face{font-family:%q;font-style:normal;font-weight:normal;"+
		"src:url(data:font/ttf;base64,%s) format(\"truetype\");}\n",
		chartFamily, base64.StdEncoding.EncodeToString(liberationsansregular.TTF))
}

const pageStyle = `
body{font-family:"Liberation Sans",sans-serif;margin:24px;color:#111;background:#fff;}
h1{font-size:22px;margin:0 0 8px 0;}
h2{font-size:17px;margin:28px 0 6px 0;}
p{margin:4px 0 10px 0;max-width:70em;}
table{border-collapse:collapse;font-size:13px;}
th,td{border:1px solid #999;padding:3px 7px;text-align:left;vertical-align:top;}
td{white-space:nowrap;}
td:last-child{white-space:normal;min-width:16em;}
#runs{width:100%;}
#runs td{white-space:normal;overflow-wrap:anywhere;}
#runs td:last-child{min-width:12em;}
#runs td.short{white-space:nowrap;overflow-wrap:normal;}
#failures th{overflow-wrap:anywhere;}
#table1 td{white-space:normal;}
.scroll{overflow-x:auto;}
th{background:#e8e8e8;}
tr:nth-child(even) td{background:#f6f6f6;}
figure{margin:16px 0;}
figcaption{font-size:13px;color:#333;}
svg{max-width:100%;height:auto;}
`

// pageTemplate is parsed on first use, not in every process that links
// the package (each `authbench exec` would pay for it).
var pageTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Parse(pageTemplateText))
})

const pageTemplateText = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<title>authbench report</title>
<style>{{.Style}}</style>
</head>
<body>
<h1>authbench report</h1>
<p id="summary">{{.Summary}}</p>
{{range .Sections}}{{template "section" .}}{{end}}
<h2 id="figures">Figures</h2>
{{range .Charts}}<figure id="{{.ID}}">
{{.SVG}}
<figcaption>{{.Title}}. {{.Caption}}</figcaption>
</figure>
{{else}}<p>No figures: no scored policies and no failed runs.</p>
{{end}}
{{template "section" .Failures}}
{{template "section" .Runs}}
{{range .Lists}}{{template "section" .}}{{end}}
</body>
</html>
{{define "section"}}<h2>{{.Title}}</h2>
<p>{{.Intro}}</p>
{{if not .Table.Rows}}<p id="{{.ID}}">None.</p>
{{else}}<div class="scroll"><table id="{{.ID}}">
<thead><tr>{{range .Table.Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Table.Rows}}<tr>{{range $i, $c := .}}<td{{if and $.Short (index $.Short $i)}} class="short"{{end}}>{{$c}}</td>{{end}}</tr>
{{end}}</tbody>
</table></div>
{{end}}{{end}}`
