package report

import (
	"bytes"
	"fmt"
	"image/color"

	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/authbench/authbench/internal/termtext"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/verdict"
)

// chart is one figure: an SVG document without its XML prolog, ready to
// be inlined in HTML.
type chart struct {
	ID, Title, Caption string
	SVG                string
}

// chartFont is the font of every chart's text: Liberation Sans, which the
// HTML page embeds once so the charts render the same offline anywhere.
var chartFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// chartFamily is chartFont's family name as the SVG output names it.
const chartFamily = "Liberation Sans"

const (
	legendGap     = vg.Length(8)
	legendPadding = vg.Length(3)
	barFraction   = 0.8 // share of a category's width taken by its bars
)

// Sizes of the charts in points.
const (
	axisChartW   = vg.Length(720)
	axisChartH   = vg.Length(300)
	failureRowH  = vg.Length(28)
	failureBaseH = vg.Length(110)
	// labelMaxW is the widest a legend entry or an axis label may be: a
	// longer one (a long agent command) is ellipsised, so the data area
	// keeps its room.
	labelMaxW = vg.Length(200)
	legendPt  = vg.Length(9)
	tickPt    = vg.Length(9)
)

// fitLabel is s with its control characters escaped (termtext), cut
// with an ellipsis to at most maxW points in the chart font of size pt;
// tables show labels whole.
func fitLabel(s string, pt vg.Length, maxW vg.Length) string {
	s = termtext.Escape(s)
	if plotTextWidth(s, pt) <= maxW {
		return s
	}
	r := []rune(s)
	lo, hi := 0, len(r) // the longest prefix that fits with "…"
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if plotTextWidth(string(r[:mid])+"…", pt) <= maxW {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return strings.TrimRight(string(r[:lo]), " ") + "…"
}

// rowColors colour the rows of Table 1 in the per-axis charts.
var rowColors = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0xff, 0x7f, 0x0e, 0xff}, {0x2c, 0xa0, 0x2c, 0xff},
	{0xd6, 0x27, 0x28, 0xff}, {0x94, 0x67, 0xbd, 0xff}, {0x8c, 0x56, 0x4b, 0xff},
	{0xe3, 0x77, 0xc2, 0xff}, {0x7f, 0x7f, 0x7f, 0xff}, {0xbc, 0xbd, 0x22, 0xff},
	{0x17, 0xbe, 0xcf, 0xff},
}

// classColors colour the failure classes by name (TestEveryClassHasAColor
// holds it complete).
var classColors = map[verdict.Class]color.RGBA{
	verdict.ClassSensitiveExposure:    {0xd6, 0x27, 0x28, 0xff},
	verdict.ClassExecuteInsufficient:  {0xff, 0x7f, 0x0e, 0xff},
	verdict.ClassReadInsufficient:     {0x1f, 0x77, 0xb4, 0xff},
	verdict.ClassWriteInsufficient:    {0x94, 0x67, 0xbd, 0xff},
	verdict.ClassWorkflowMismatch:     {0xbc, 0xbd, 0x22, 0xff},
	verdict.ClassExecViaMmap:          {0xe3, 0x77, 0xc2, 0xff},
	verdict.ClassSpecGap:              {0x17, 0xbe, 0xcf, 0xff},
	verdict.ClassOracleFailed:         {0x9e, 0xda, 0xe5, 0xff},
	verdict.ClassCapabilityDenied:     {0x2c, 0xa0, 0x2c, 0xff},
	verdict.ClassNetworkDenied:        {0x8c, 0x56, 0x4b, 0xff},
	verdict.ClassNotPermissionRelated: {0x7f, 0x7f, 0x7f, 0xff},
	ClassUnclassified:                 {0xc7, 0xc7, 0xc7, 0xff},
}

// axisCategories are the bars' groups in the per-axis charts: each
// axis's precision and recall.
func axisCategories(axes []policy.Axis) []string {
	var out []string
	for _, a := range axes {
		out = append(out, a.String()+" P", a.String()+" R")
	}
	return out
}

// charts renders the report's figures: per-axis macro precision and
// recall for the standard and the sensitive set, and the failure
// distribution. A figure without data is left out.
func (r *Report) charts() ([]chart, error) {
	var out []chart
	for _, set := range []struct{ id, dataset, title string }{
		{"figure-standard-axes", DatasetStandard, "Per-axis macro precision and recall, standard tasks"},
		{"figure-sensitive-axes", DatasetSensitive, "Per-axis macro precision and recall, sensitive tasks"},
	} {
		svg, err := r.axisChart(set.dataset, set.title)
		if err != nil {
			return nil, fmt.Errorf("chart %s: %w", set.id, err)
		}
		if svg != "" {
			out = append(out, chart{ID: set.id, Title: set.title, SVG: svg,
				Caption: "P = precision, R = recall, macro means over tasks; one bar per source / agent with a policy."})
		}
	}
	svg, err := r.failureChart()
	if err != nil {
		return nil, fmt.Errorf("chart failure distribution: %w", err)
	}
	if svg != "" {
		out = append(out, chart{ID: "figure-failures", Title: "Failure distribution", SVG: svg,
			Caption: "Share of each primary failure class among the failed runs of each source / agent."})
	}
	return out, nil
}

// axisChart is a grouped bar chart of the per-axis macro precision and
// recall of every row scored on dataset, over the report's axes
// (shownAxes: network where a run has it); "" when no row is scored.
func (r *Report) axisChart(dataset, title string) (string, error) {
	type series struct {
		label  string
		values plotter.Values
	}
	axes := r.shownAxes(dataset)
	var all []series
	for _, row := range r.Rows {
		s := row.StaticStandard
		if dataset == DatasetSensitive {
			s = row.StaticSensitive
		}
		if s == nil {
			continue
		}
		var values plotter.Values
		for _, a := range axes {
			if x := s.Axis(a); x != nil {
				values = append(values, x.Precision, x.Recall)
			} else {
				values = append(values, 0, 0) // no score on the axis: no bar
			}
		}
		all = append(all, series{row.Label(), values})
	}
	if len(all) == 0 {
		return "", nil
	}
	p := newPlot(title)
	p.Y.Label.Text = "macro mean"
	p.Y.Min, p.Y.Max = 0, 1
	categories := axisCategories(axes)
	p.NominalX(categories...)
	legend := newLegend()
	for _, s := range all {
		legend.entries = append(legend.entries, fitLabel(s.label, legendPt, labelMaxW))
	}
	plotW := axisChartW - legend.width()
	// The data area is the plot's width less its y axis (about 50pt).
	groupW := (plotW - 50) / vg.Length(len(categories)) * barFraction
	barW := groupW / vg.Length(len(all))
	for i, s := range all {
		bars, err := plotter.NewBarChart(s.values, barW)
		if err != nil {
			return "", err
		}
		bars.Color = rowColors[i%len(rowColors)]
		bars.LineStyle.Width = 0
		bars.Offset = (vg.Length(i) - vg.Length(len(all)-1)/2) * barW
		p.Add(bars)
		legend.thumbs = append(legend.thumbs, bars)
	}
	return renderSVG(p, legend, axisChartW, axisChartH)
}

// failureChart is a horizontal stacked bar per row with failed runs: the
// share of each primary class; "" when no row has failed runs.
func (r *Report) failureChart() (string, error) {
	var rows []FailureDist
	for _, d := range r.Failures {
		if d.Failed > 0 {
			rows = append(rows, d)
		}
	}
	if len(rows) == 0 {
		return "", nil
	}
	return shareChart("Failure distribution (primary class)", rows, ClassOrder)
}

// shareChart draws horizontal stacked bars of the rows' failed runs over
// classes (each row's Classes in that order): the failure chart and the
// per-model one.
func shareChart(title string, rows []FailureDist, classes []verdict.Class) (string, error) {
	p := newPlot(title)
	p.X.Label.Text = "share of failed runs (%)"
	p.X.Min, p.X.Max = 0, 100
	labels := make([]string, len(rows))
	// NominalY puts the first name at the bottom: list rows bottom-up so
	// they read top-down in the rows' order.
	for i, d := range rows {
		labels[len(rows)-1-i] = fitLabel(d.Label(), tickPt, labelMaxW-plotTextWidth(failedSuffix(d.Failed), tickPt)) + failedSuffix(d.Failed)
	}
	p.NominalY(labels...)
	p.Y.Min, p.Y.Max = -0.6, float64(len(rows))-0.4
	legend := newLegend()
	var below *plotter.BarChart
	for ci, class := range classes {
		values := make(plotter.Values, len(rows))
		for i, d := range rows {
			values[len(rows)-1-i] = 100 * d.Classes[ci].Share
		}
		bars, err := plotter.NewBarChart(values, failureRowH*0.7)
		if err != nil {
			return "", err
		}
		bars.Horizontal = true
		bars.Color = classColors[class]
		if class == verdict.ClassInvalidPolicy {
			bars.Color = invalidPolicyColor
		}
		bars.LineStyle.Width = 0
		if below != nil {
			bars.StackOn(below)
		}
		below = bars
		p.Add(bars)
		legend.entries = append(legend.entries, fmt.Sprintf("%s (%d)", class, classTotal(rows, ci)))
		legend.thumbs = append(legend.thumbs, bars)
	}
	counts, err := segmentCounts(rows)
	if err != nil {
		return "", err
	}
	p.Add(counts)
	return renderSVG(p, legend, axisChartW, failureBaseH+failureRowH*vg.Length(len(rows)))
}

// failedSuffix follows a row's label on the failure chart: its count of
// failed runs.
func failedSuffix(n int) string { return fmt.Sprintf(" (%d failed)", n) }

// classTotal is how many failed runs of rows have class ci as primary.
func classTotal(rows []FailureDist, ci int) int {
	n := 0
	for _, d := range rows {
		n += d.Classes[ci].Count
	}
	return n
}

// minLabelledShare is the narrowest segment (in percent of its bar)
// that is wide enough to show its count in it; the legend has every
// class's total.
const minLabelledShare = 4

// segmentCounts writes each segment's count of runs in its middle, on
// the rows as failureChart lays them out (bottom-up).
func segmentCounts(rows []FailureDist) (*plotter.Labels, error) {
	var pts plotter.XYLabels
	for i, d := range rows {
		y := float64(len(rows) - 1 - i)
		left := 0.0
		for _, c := range d.Classes {
			w := 100 * c.Share
			if c.Count > 0 && w >= minLabelledShare {
				pts.XYs = append(pts.XYs, plotter.XY{X: left + w/2, Y: y})
				pts.Labels = append(pts.Labels, fmt.Sprint(c.Count))
			}
			left += w
		}
	}
	l, err := plotter.NewLabels(pts)
	if err != nil {
		return nil, err
	}
	for i := range l.TextStyle {
		l.TextStyle[i].Font = font.From(chartFont, tickPt)
		l.TextStyle[i].XAlign, l.TextStyle[i].YAlign = draw.XCenter, draw.YCenter
	}
	return l, nil
}

// plotTextWidth is the width of s in the chart font of size pt.
func plotTextWidth(s string, pt vg.Length) vg.Length {
	sty := plot.NewLegend().TextStyle
	sty.Font = font.From(chartFont, pt)
	return sty.Width(s)
}

// newPlot is a plot whose text is all in chartFont.
func newPlot(title string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(chartFont, 12)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(chartFont, 10)
		a.Tick.Label.Font = font.From(chartFont, tickPt)
	}
	return p
}

// sideLegend is a legend drawn to the right of the plot, outside its data
// area, so it never hides a bar.
type sideLegend struct {
	entries []string
	thumbs  []plot.Thumbnailer
}

func newLegend() *sideLegend { return &sideLegend{} }

func (l *sideLegend) legend() plot.Legend {
	lg := plot.NewLegend()
	lg.TextStyle.Font = font.From(chartFont, legendPt)
	lg.Top, lg.Left = true, true
	lg.Padding = legendPadding
	for i, e := range l.entries {
		lg.Add(e, l.thumbs[i])
	}
	return lg
}

// width is the room the legend takes: its widest entry, the thumbnail
// and a gap.
func (l *sideLegend) width() vg.Length {
	lg := plot.NewLegend()
	sty := lg.TextStyle
	sty.Font = font.From(chartFont, legendPt)
	var w vg.Length
	for _, e := range l.entries {
		w = max(w, sty.Width(e))
	}
	return w + lg.ThumbnailWidth + sty.Width(" ") + 2*legendGap
}

// renderSVG draws p with its legend on the right into an SVG of w×h
// points and returns the <svg> element.
func renderSVG(p *plot.Plot, l *sideLegend, w, h vg.Length) (string, error) {
	c := vgsvg.New(w, h)
	dc := draw.New(c)
	lw := l.width()
	p.Draw(draw.Crop(dc, 0, -lw, 0, 0))
	lg := l.legend()
	lg.Draw(draw.Crop(dc, w-lw+legendGap, -legendGap, 0, -legendGap))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return "", err
	}
	svg := buf.String()
	start := strings.Index(svg, "<svg")
	if start < 0 {
		return "", fmt.Errorf("no <svg> element in the plot's output")
	}
	return svg[start:], nil
}
