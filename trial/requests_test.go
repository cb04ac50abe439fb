package trial

import (
	"testing"

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
