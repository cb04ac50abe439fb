package runapi

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestEveryKindHasArtifacts: every kind of the union has its table and a
// Wait stream in it; an unknown kind has neither.
func TestEveryKindHasArtifacts(t *testing.T) {
	for _, k := range Kinds() {
		table := ArtifactsOf(k)
		if len(table) == 0 {
			t.Errorf("kind %s has no artifacts", k)
		}
		if _, err := ArtifactFile(k, table, WaitLog(k)); err != nil {
			t.Errorf("kind %s: Wait follows %q, not one of its files: %v", k, WaitLog(k), err)
		}
	}
	if len(kindArtifacts) != len(Kinds()) {
		t.Errorf("%d artifact tables for %d kinds", len(kindArtifacts), len(Kinds()))
	}
	if ArtifactsOf("shell") != nil || WaitLog("shell") != "" {
		t.Error("an unknown kind has artifacts")
	}
}

// TestArtifactFile: a name of the kind's table is its file; anything
// else (another kind's name, a file name, a path, the record, a name in
// another case) is an *ArtifactError listing the kind's names in order.
func TestArtifactFile(t *testing.T) {
	for _, c := range []struct {
		kind       Kind
		name, file string
	}{
		{KindExec, LogStdout, FileStdout},
		{KindExec, LogEvents, FileEvents},
		{KindTask, LogAgentStderr, FileAgentStderr},
		{KindTask, LogResult, FileResult},
		{KindGenerate, LogGeneratedPolicy, FileGeneratedPolicy},
		{KindBuild, LogBuild, FileBuildLog},
		{KindExec, LogAgentStdout, ""},
		{KindTask, LogStdout, ""},
		{KindBuild, LogEvents, ""},
		{KindGenerate, LogResult, ""},
		{KindExec, FileStdout, ""},
		{KindExec, "run.json", ""},
		{KindExec, "../run.json", ""},
		{KindTask, "/etc/shadow", ""},
		{KindTask, "agent-stdout/../result", ""},
		{KindExec, "STDOUT", ""},
		{KindExec, "", ""},
		{KindExec, "stdout\x00", ""},
	} {
		file, err := ArtifactFile(c.kind, ArtifactsOf(c.kind), c.name)
		if c.file != "" {
			if err != nil || file != c.file {
				t.Errorf("%s %q = %q, %v; want %q", c.kind, c.name, file, err, c.file)
			}
			continue
		}
		var ae *ArtifactError
		if !errors.As(err, &ae) || file != "" {
			t.Errorf("%s %q = %q, %v; want an *ArtifactError", c.kind, c.name, file, err)
			continue
		}
		var want []string
		for _, a := range ArtifactsOf(c.kind) {
			want = append(want, a.API)
		}
		if ae.Kind != c.kind || ae.Name != c.name || !reflect.DeepEqual(ae.Allowed, want) ||
			!strings.Contains(err.Error(), strings.Join(want, ", ")) {
			t.Errorf("%s %q: %+v (%v)", c.kind, c.name, ae, err)
		}
	}
}
