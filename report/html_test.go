package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/authbench/authbench/trial"
)

// node is a parsed element of the page.
type node struct {
	name     string
	attrs    map[string]string
	children []*node
	text     strings.Builder
}

// parseXML parses the page strictly as XML: it fails on any element left
// open, any stray '<' or '&', any mismatched end tag.
func parseXML(t *testing.T, page []byte) *node {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(page))
	dec.Strict = true
	root := &node{name: "#document"}
	stack := []*node{root}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the page is not well-formed: %v", err)
		}
		top := stack[len(stack)-1]
		switch tok := tok.(type) {
		case xml.StartElement:
			n := &node{name: tok.Name.Local, attrs: map[string]string{}}
			for _, a := range tok.Attr {
				n.attrs[a.Name.Local] = a.Value
			}
			top.children = append(top.children, n)
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			for _, n := range stack {
				n.text.Write(tok)
			}
		}
	}
	if len(stack) != 1 {
		t.Fatalf("%d elements left open", len(stack)-1)
	}
	return root
}

// walk calls f on n and every element below it.
func (n *node) walk(f func(*node)) {
	f(n)
	for _, c := range n.children {
		c.walk(f)
	}
}

// find returns every element named name below n.
func (n *node) find(name string) []*node {
	var out []*node
	n.walk(func(c *node) {
		if c.name == name {
			out = append(out, c)
		}
	})
	return out
}

func (n *node) byID(id string) *node {
	var found *node
	n.walk(func(c *node) {
		if c.attrs["id"] == id && found == nil {
			found = c
		}
	})
	return found
}

func renderHTML(t *testing.T, rep *Report) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := rep.HTML(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestHTMLWellFormedWithTableAndCharts(t *testing.T) {
	rep := Build(benchRecords(), Options{})
	doc := parseXML(t, renderHTML(t, rep))

	table1 := doc.byID("table1")
	if table1 == nil {
		t.Fatal("no table1")
	}
	want := rep.table1()
	trs := table1.find("tr")
	if len(trs) != 1+len(want.Rows) {
		t.Fatalf("table1 has %d rows, want %d", len(trs), 1+len(want.Rows))
	}
	for i, tr := range trs[1:] {
		var cells []string
		for _, td := range tr.find("td") {
			cells = append(cells, td.text.String())
		}
		if !reflect.DeepEqual(cells, want.Rows[i]) {
			t.Errorf("table1 row %d = %q, want %q", i, cells, want.Rows[i])
		}
	}
	for _, id := range []string{"static", "failures", "runs"} {
		if doc.byID(id) == nil {
			t.Errorf("no table %s", id)
		}
	}

	// Three figures, each an inline SVG with bars drawn in colour.
	for _, id := range []string{"figure-standard-axes", "figure-sensitive-axes", "figure-failures"} {
		fig := doc.byID(id)
		if fig == nil {
			t.Errorf("no figure %s", id)
			continue
		}
		svgs := fig.find("svg")
		if len(svgs) != 1 {
			t.Errorf("figure %s has %d svg elements, want 1", id, len(svgs))
			continue
		}
		if svgs[0].attrs["aria-label"] == "" {
			t.Errorf("figure %s's svg has no aria-label", id)
		}
		coloured := 0
		svgs[0].walk(func(n *node) {
			if n.name == "path" && strings.Contains(n.attrs["style"], "fill:#") &&
				!strings.Contains(n.attrs["style"], "fill:#ffffff") && !strings.Contains(n.attrs["style"], "fill:#000000") {
				coloured++
			}
		})
		if coloured == 0 {
			t.Errorf("figure %s draws no coloured bar", id)
		}
	}
	// The figure of a row appears in its legend.
	if !strings.Contains(doc.byID("figure-standard-axes").text.String(), "dir:policies / oracle") {
		t.Error("the per-axis chart's legend does not name the dir:policies row")
	}
}

func TestHTMLLoadsNothing(t *testing.T) {
	page := renderHTML(t, Build(benchRecords(), Options{}))
	doc := parseXML(t, page)
	doc.walk(func(n *node) {
		switch n.name {
		case "script", "link", "img", "iframe", "object", "embed":
			t.Errorf("the page has a <%s> element", n.name)
		}
		for _, a := range []string{"src", "href"} {
			if v, ok := n.attrs[a]; ok && !strings.HasPrefix(v, "data:") {
				t.Errorf("<%s %s=%q> loads a resource", n.name, a, v)
			}
		}
	})
	css := ""
	for _, s := range doc.find("style") {
		css += s.text.String()
	}
	if strings.Contains(css, "@import") {
		t.Error("the style imports a stylesheet")
	}
	if n, m := strings.Count(css, "url("), strings.Count(css, "url(data:"); n != m || n == 0 {
		t.Errorf("the style has %d url() of which %d data: URLs; want only the embedded font", n, m)
	}
}

func TestHTMLWithoutFigures(t *testing.T) {
	// Only unconstrained runs that all succeed: nothing to chart.
	rep := Build([]trial.Record{run("a", DatasetStandard, "unconstrained", "oracle", 1)}, Options{})
	doc := parseXML(t, renderHTML(t, rep))
	if n := len(doc.find("svg")); n != 0 {
		t.Errorf("%d charts without data", n)
	}
	if doc.byID("table1") == nil {
		t.Error("no table1")
	}
}

func TestJSONRoundTrip(t *testing.T) {
	rep := Build(benchRecords(), Options{})
	var buf bytes.Buffer
	if err := rep.JSON(&buf); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, rep) {
		t.Errorf("JSON does not round-trip:\n%s", buf.Bytes())
	}
	var raw map[string]any
	if err := json.Unmarshal(buf.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	row := raw["table1"].([]any)[0].(map[string]any)
	if row["static_standard"] != nil || row["source"] != "unconstrained" {
		t.Errorf("unconstrained row = %v, want static_standard null", row)
	}
}
