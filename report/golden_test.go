package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"reflect"
	"testing"

	"github.com/authbench/authbench/trial"
)

// TestReportJSONIsUnchanged: the report of trial's golden results rows
// (../trial/testdata/rows.jsonl: one sets every field of the record) is
// testdata/report.json, written before the drill-down's entries were
// derived from the record's grouped fields: the same keys with the same
// values (the order of keys within an object aside).
func TestReportJSONIsUnchanged(t *testing.T) {
	f, err := os.Open("../trial/testdata/rows.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var records []trial.Record
	for dec := json.NewDecoder(f); ; {
		var r trial.Record
		if err := dec.Decode(&r); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		records = append(records, r)
	}
	if len(records) != 3 {
		t.Fatalf("%d rows", len(records))
	}
	var buf bytes.Buffer
	if err := Build(records, Options{}).JSON(&buf); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/report.json")
	if err != nil {
		t.Fatal(err)
	}
	var g, w any
	if err := json.Unmarshal(buf.Bytes(), &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("report JSON changed:\n got %s\nwant %s", buf.Bytes(), want)
	}
}
