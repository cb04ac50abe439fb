package report

import (
	"bytes"
	"flag"
	"github.com/authbench/authbench/verdict"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/trial"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run with -update to create it): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; got:\n%s", name, got)
	}
}

func TestMarkdownGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := Build(benchRecords(), Options{}).Markdown(&buf); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.md", buf.Bytes())
}

func TestTable1TextGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := Build(benchRecords(), Options{}).Table1Text(&buf); err != nil {
		t.Fatal(err)
	}
	golden(t, "table1.txt", buf.Bytes())
}

func TestRenderEmpty(t *testing.T) {
	rep := Build(nil, Options{})
	for name, render := range map[string]func(*bytes.Buffer) error{
		"markdown": func(b *bytes.Buffer) error { return rep.Markdown(b) },
		"json":     func(b *bytes.Buffer) error { return rep.JSON(b) },
		"html":     func(b *bytes.Buffer) error { return rep.HTML(b) },
		"text":     func(b *bytes.Buffer) error { return rep.Table1Text(b) },
	} {
		var buf bytes.Buffer
		if err := render(&buf); err != nil || buf.Len() == 0 {
			t.Errorf("%s of no records: %d bytes, %v", name, buf.Len(), err)
		}
	}
	var buf bytes.Buffer
	if err := rep.JSON(&buf); err != nil || !bytes.Contains(buf.Bytes(), []byte(`"table1": []`)) {
		t.Errorf("JSON of no records has no empty table1: %s", buf.Bytes())
	}
}

func TestMarkdownCellEscapes(t *testing.T) {
	r := run("a", DatasetStandard, "spec", `cmd:"grep a|b"`, 1)
	r = failed(r, "read_insufficient", "openat read /x|y\nz")
	var buf bytes.Buffer
	if err := Build([]trial.Record{r}, Options{}).Markdown(&buf); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	for _, want := range []string{`cmd:"grep a\|b"`, `openat read /x\|y z`} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
}

// TestEveryClassHasAColor: each failure class of the distribution has its
// own colour in the chart.
func TestEveryClassHasAColor(t *testing.T) {
	seen := map[color.RGBA]verdict.Class{}
	for _, class := range ClassOrder {
		c, ok := classColors[class]
		if !ok {
			t.Errorf("class %s has no colour", class)
		}
		if other, dup := seen[c]; dup {
			t.Errorf("classes %s and %s share a colour", other, class)
		}
		seen[c] = class
	}
}
