package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
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
