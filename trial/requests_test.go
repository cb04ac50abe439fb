package trial

import (
	"slices"
	"testing"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/runapi"
)

func TestRequestsOf(t *testing.T) {
	if RequestsOf(&runapi.TaskResult{}) != nil {
		t.Error("a run without a decider has request counts")
	}
	res := &runapi.TaskResult{Requests: "spec", PermissionRequestsOverLimit: 2, PermissionRequests: []runapi.PermissionRequest{
		{Decision: runapi.RequestGranted, Required: true, Used: true},
		{Decision: runapi.RequestGranted},
		{Decision: runapi.RequestRefused, Sensitive: true},
		{Decision: runapi.RequestFailed},
		{Decision: runapi.RequestInvalid},
	}}
	got := *RequestsOf(res)
	want := Requests{Decider: "spec", Made: 7, Granted: 2, Refused: 4, Invalid: 1, Required: 1, Used: 1, Sensitive: 1}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// TestClassifyRequestRefused: a failed run with a refused request is
// request_refused beside its denial's class, which stays primary; a run
// that succeeded, or whose requests were all granted, is not.
func TestClassifyRequestRefused(t *testing.T) {
	d := audit.Denial{Op: "open", Axis: "read", Path: "/data/x", Errno: "EACCES", Count: 1}
	c := Classify(Outcome{Denials: []audit.Denial{d}, RequestsRefused: 1})
	if !slices.Contains(c.Classes, ClassRequestRefused) || c.Primary == ClassRequestRefused {
		t.Errorf("failed after a refusal: %+v", c)
	}
	if c := Classify(Outcome{RequestsRefused: 1}); c.Primary != ClassNotPermissionRelated || !slices.Contains(c.Classes, ClassRequestRefused) {
		t.Errorf("failed without a denial: %+v", c)
	}
	for _, o := range []Outcome{{Utility: true, RequestsRefused: 1}, {Denials: []audit.Denial{d}}} {
		if c := Classify(o); slices.Contains(c.Classes, ClassRequestRefused) {
			t.Errorf("%+v: %+v", o, c)
		}
	}
}
