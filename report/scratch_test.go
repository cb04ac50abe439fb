package report

import (
	"os"
	"testing"
)

func TestScratchHTML(t *testing.T) {
	f, _ := os.Create("/tmp/report-scratch.html")
	defer f.Close()
	if err := Build(benchRecords(), Options{}).HTML(f); err != nil {
		t.Fatal(err)
	}
}
