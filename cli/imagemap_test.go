package cli

import (
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/authbench/authbench/runapi"
)

// TestImageMapFlagAndFormerName: --image-map and its former name
// --base-map fill one list, in order.
func TestImageMapFlagAndFormerName(t *testing.T) {
	var got []string
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	addImageMapFlag(fs, &got, imageMapUsage)
	if err := fs.Parse([]string{"--image-map", "python:3.12-slim=authbench-base", "--base-map", "ubuntu=mine:1"}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, []string{"python:3.12-slim=authbench-base", "ubuntu=mine:1"}) {
		t.Errorf("entries %v", got)
	}
	if f := fs.Lookup("base-map"); f == nil || !f.Hidden {
		t.Error("--base-map should be a hidden alias")
	}
}

// TestTaskSummaryNamesSubstitutions: the text summary of a run lists
// every image used in place of the one its task names, and the compose
// keys it did not apply.
func TestTaskSummaryNamesSubstitutions(t *testing.T) {
	var b strings.Builder
	printTaskResult(&b, "r1", &runapi.TaskResult{Task: "t", Agent: "oracle",
		ImageSubstitutions: []runapi.ImageSubstitution{{Service: "sink", Ref: "python:3.12-slim", Used: "localhost/authbench-base:k", Why: "offline default"}},
		ComposeWarnings:    []string{`service "sink": "restart": services run once, for the run`},
	})
	for _, want := range []string{"image python:3.12-slim (service sink) → localhost/authbench-base:k: offline default", `compose: service "sink": "restart"`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
}
