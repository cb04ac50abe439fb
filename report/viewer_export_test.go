package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestExportedTablesAndFiguresAreThePages: what a viewer shows is what
// the HTML page shows, cell for cell and figure for figure.
func TestExportedTablesAndFiguresAreThePages(t *testing.T) {
	rep := Build(benchRecords(), Options{})
	var page bytes.Buffer
	if err := rep.HTML(&page); err != nil {
		t.Fatal(err)
	}
	tables := rep.Tables()
	if len(tables) != 3 || tables[0].ID != "table1" || len(tables[0].Rows) != len(rep.Rows) {
		t.Fatalf("tables %+v", tables)
	}
	for _, row := range tables[0].Rows {
		for _, cell := range row {
			if !strings.Contains(page.String(), "<td>"+cell+"</td>") {
				t.Errorf("cell %q of Table 1 not on the page", cell)
			}
		}
	}
	figs, err := rep.Figures()
	if err != nil {
		t.Fatal(err)
	}
	if len(figs) != 3 {
		t.Fatalf("%d figures, want 3", len(figs))
	}
	for _, f := range figs {
		if !strings.Contains(page.String(), string(f.SVG)) {
			t.Errorf("figure %s is not the page's", f.ID)
		}
	}
}
