package viewer

import (
	"reflect"
	"testing"

	"github.com/authbench/authbench/trial"
	"github.com/authbench/authbench/verdict"
)

func TestJobNames(t *testing.T) {
	got := JobNames([]string{"/a/out", "/b/out/", "run1", "/c/out"})
	want := []string{"out", "out#2", "run1", "out#3"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("JobNames = %v, want %v", got, want)
	}
}

func TestModelOf(t *testing.T) {
	for _, c := range []struct {
		agent, generator, want string
	}{
		{"openai:gpt-x", "", "gpt-x"},
		{"installed:codex:o4", "", "o4"},
		{"oracle", "openai:gen-model", "gen-model"},
		{"oracle", "st:st-model", "st-model"},
		{"installed:pi@latest:m", "openai:gen-model", ""},
		{"openai:", "openai:gen-model", ""},
		{"cmd:true", "heuristic", ""},
		{"oracle", "", ""},
	} {
		r := &trial.Record{Identity: trial.Identity{Agent: c.agent}}
		if c.generator != "" {
			r.Generation = &trial.Generation{Generator: c.generator}
		}
		if got := ModelOf(r); got != c.want {
			t.Errorf("ModelOf(%s, %s) = %q, want %q", c.agent, c.generator, got, c.want)
		}
	}
}

func TestFilterClassNone(t *testing.T) {
	ok := trial.Record{Identity: trial.Identity{Task: "a"}, Classes: []verdict.Class{}}
	bad := trial.Record{Identity: trial.Identity{Task: "b"}, Classes: []verdict.Class{verdict.ClassVerifierTampered}, Diagnosis: trial.Diagnosis{Primary: verdict.ClassReadInsufficient}}
	recs := []trial.Record{ok, bad}
	for class, want := range map[string]string{classNone: "a", string(verdict.ClassVerifierTampered): "b", string(verdict.ClassReadInsufficient): "b"} {
		rows := RunRows(recs, Filter{Class: class})
		if len(rows) != 1 || rows[0].Task != want {
			t.Errorf("class %s: %+v", class, rows)
		}
	}
	fields := FilterFields(recs, Filter{Class: classNone})
	if fields[4].Key != "class" || fields[4].Value != classNone || len(fields[4].Options) != 3 {
		t.Errorf("class field %+v", fields[4])
	}
}
