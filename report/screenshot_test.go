package report

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/authbench/authbench/internal/testenv"
)

// Screenshot size in CSS pixels: wide enough for Table 1 on one line per
// row, tall enough for the three figures.
const shotW, shotH = 1280, 3200

// chromium runs headless Chromium on page with args and returns stdout.
func chromium(t *testing.T, page string, args ...string) []byte {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	testenv.Need(t, "chromium (Debian package chromium)", err == nil)
	dir := t.TempDir()
	base := []string{
		"--headless", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
		"--user-data-dir=" + filepath.Join(dir, "profile"),
	}
	if os.Geteuid() == 0 {
		base = append(base, "--no-sandbox") // Chromium refuses root otherwise
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(append(base, args...), "file://"+page)...)
	cmd.Env = append(os.Environ(), "HOME="+dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.Bytes())
	}
	return stdout.Bytes()
}

// writePage renders the synthetic bench's HTML report into a file.
func writePage(t *testing.T, rep *Report) string {
	t.Helper()
	page := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(page, renderHTML(t, rep), 0o644); err != nil {
		t.Fatal(err)
	}
	return page
}

func TestHTMLScreenshotInChromium(t *testing.T) {
	t.Parallel()
	rep := Build(benchRecords(), Options{})
	page := writePage(t, rep)
	shot := filepath.Join(t.TempDir(), "report.png")
	chromium(t, page, fmt.Sprintf("--window-size=%d,%d", shotW, shotH), "--screenshot="+shot)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("decode screenshot: %v", err)
	}
	l := analyse(img)
	t.Logf("screenshot %v: charts from y=%d, %d coloured pixels in %d bands; %d table lines and %d dark pixels above",
		img.Bounds().Size(), l.chartTop, l.coloured, l.bands, l.tableLines, l.darkAbove)
	// The tables come first: above the first chart, Table 1 and the
	// static scores draw a ruled line per row (header, 4 + 4 rows, and
	// the closing lines) and their text.
	if l.chartTop < 0 {
		t.Fatal("no chart drawn: no coloured pixel in the screenshot")
	}
	if want := 2 + len(rep.Rows) + len(rep.staticTable().Rows); l.tableLines < want {
		t.Errorf("%d ruled table lines above the charts, want at least %d", l.tableLines, want)
	}
	if l.darkAbove < 5000 {
		t.Errorf("only %d dark (text) pixels above the charts", l.darkAbove)
	}
	// Three figures: the two per-axis charts and the failure chart, each
	// a band of coloured bars, together a sizeable area.
	if l.bands < 3 {
		t.Errorf("%d bands of coloured pixels, want at least 3 (one per figure)", l.bands)
	}
	if l.coloured < 50000 {
		t.Errorf("only %d coloured pixels in the charts", l.coloured)
	}
}

func TestHTMLDumpDOMInChromium(t *testing.T) {
	t.Parallel()
	rep := Build(benchRecords(), Options{})
	dom := chromium(t, writePage(t, rep), "--dump-dom")
	doc, err := html.Parse(bytes.NewReader(dom))
	if err != nil {
		t.Fatal(err)
	}
	table1 := findByID(doc, "table1")
	if table1 == nil {
		t.Fatalf("no table1 in the DOM:\n%.2000s", dom)
	}
	var got [][]string
	for _, tr := range elements(table1, "tr") {
		var cells []string
		for _, td := range elements(tr, "td") {
			cells = append(cells, textOf(td))
		}
		if cells != nil {
			got = append(got, cells)
		}
	}
	if want := rep.table1().Rows; !reflect.DeepEqual(got, want) {
		t.Errorf("Table 1 cells in the DOM = %q, want %q", got, want)
	}
	if n := len(elements(doc, "svg")); n != 3 {
		t.Errorf("%d svg elements in the DOM, want 3", n)
	}
}

// layout is what analyse finds in a screenshot.
type layout struct {
	chartTop   int // first row with a coloured pixel, -1 when none
	coloured   int // coloured (saturated) pixels
	bands      int // vertical bands of rows with coloured pixels
	tableLines int // rows above chartTop holding a long grey rule
	darkAbove  int // dark pixels above chartTop
}

// The page draws text in black, table rules in grey and backgrounds in
// near-white greys; only the charts' bars are saturated colours.
func saturated(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	hi, lo := max(r, g, b)>>8, min(r, g, b)>>8
	return hi-lo > 60
}

func dark(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return (r+g+b)/3>>8 < 100
}

// rule is the grey of a table border (#999, anti-aliased around it).
func rule(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	v := (r + g + b) / 3 >> 8
	return !saturated(c) && v >= 120 && v <= 200
}

// analyse measures a screenshot: where the charts start, how much they
// colour, and the tables' rules and text above them.
func analyse(img image.Image) layout {
	bo := img.Bounds()
	l := layout{chartTop: -1}
	inBand := false
	for y := bo.Min.Y; y < bo.Max.Y; y++ {
		rowColoured, run, longest, rowDark := 0, 0, 0, 0
		for x := bo.Min.X; x < bo.Max.X; x++ {
			c := img.At(x, y)
			if saturated(c) {
				rowColoured++
			}
			if dark(c) {
				rowDark++
			}
			if rule(c) {
				run++
				longest = max(longest, run)
			} else {
				run = 0
			}
		}
		if rowColoured > 0 && l.chartTop < 0 {
			l.chartTop = y
		}
		if l.chartTop < 0 {
			l.darkAbove += rowDark
			if longest >= bo.Dx()/3 {
				l.tableLines++
			}
		}
		l.coloured += rowColoured
		if rowColoured > 0 && !inBand {
			l.bands++
		}
		inBand = rowColoured > 0
	}
	return l
}

func TestAnalyseBlankAndDrawn(t *testing.T) {
	blank := image.NewRGBA(image.Rect(0, 0, 400, 300))
	for i := range blank.Pix {
		blank.Pix[i] = 0xff
	}
	if l := analyse(blank); l.chartTop != -1 || l.coloured != 0 || l.bands != 0 || l.tableLines != 0 || l.darkAbove != 0 {
		t.Errorf("blank image: %+v, want nothing found", l)
	}
	drawn := image.NewRGBA(image.Rect(0, 0, 400, 300))
	copy(drawn.Pix, blank.Pix)
	for x := 0; x < 400; x++ {
		drawn.Set(x, 10, color.Gray{0x99}) // a table rule
		drawn.Set(x, 20, color.Gray{0x99})
		drawn.Set(x, 15, color.Black) // text
	}
	for y := 100; y < 120; y++ { // two bars
		for x := 50; x < 100; x++ {
			drawn.Set(x, y, color.RGBA{0x1f, 0x77, 0xb4, 0xff})
			drawn.Set(x, y+100, color.RGBA{0xd6, 0x27, 0x28, 0xff})
		}
	}
	want := layout{chartTop: 100, coloured: 2000, bands: 2, tableLines: 2, darkAbove: 400}
	if l := analyse(drawn); l != want {
		t.Errorf("drawn image: %+v, want %+v", l, want)
	}
}

func findByID(n *html.Node, id string) *html.Node {
	for _, e := range elements(n, "") {
		for _, a := range e.Attr {
			if a.Key == "id" && a.Val == id {
				return e
			}
		}
	}
	return nil
}

// elements lists the elements below n named tag ("" for all).
func elements(n *html.Node, tag string) []*html.Node {
	var out []*html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && (tag == "" || c.Data == tag) {
			out = append(out, c)
		}
		out = append(out, elements(c, tag)...)
	}
	return out
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// TestRunsTableKeepsShortColumnsWhole: on a narrow window, where the
// runs table's long notes and paths must wrap, Chromium lays out every
// cell of a short column (set, agent, trial, verdicts) on one line: no
// word is broken in the middle.
func TestRunsTableKeepsShortColumnsWhole(t *testing.T) {
	t.Parallel()
	recs := benchRecords()
	for i := range recs {
		recs[i].Task = "task-number-" + recs[i].Task
		recs[i].DecidingDenial = "openat read /very/long/path/" + strings.Repeat("segment/", 12) + "file.txt"
	}
	rep := Build(recs, Options{})
	page := renderHTML(t, rep)
	// The page loads nothing; the test adds a script that counts the line
	// boxes of each cell's text.
	measure := `<script>for (const td of document.querySelectorAll("#runs td")) {` +
		`const r = document.createRange(); r.selectNodeContents(td);` +
		`const tops = new Set(Array.from(r.getClientRects(), x => Math.round(x.top)));` +
		`td.setAttribute("data-lines", tops.size);}</script></body>`
	page = bytes.Replace(page, []byte("</body>"), []byte(measure), 1)
	file := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(file, page, 0o644); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(chromium(t, file, "--window-size=640,2000", "--dump-dom")))
	if err != nil {
		t.Fatal(err)
	}
	runs := findByID(doc, "runs")
	if runs == nil {
		t.Fatal("no runs table in the DOM")
	}
	header := elements(runs, "th")
	short := shortColumns(rep.runsTable(), shortCell)
	wrapped, measured := 0, 0
	for _, tr := range elements(runs, "tr") {
		for i, td := range elements(tr, "td") {
			lines := attr(td, "data-lines")
			if lines == "" || textOf(td) == "" {
				continue
			}
			measured++
			if short[i] && lines != "1" {
				t.Errorf("column %q: cell %q laid out on %s lines", textOf(header[i]), textOf(td), lines)
			}
			if !short[i] && lines != "1" {
				wrapped++
			}
		}
	}
	if measured == 0 || wrapped == 0 {
		t.Fatalf("%d cells measured, %d long ones wrapped: the window is not narrow enough to prove anything", measured, wrapped)
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}
