package bench

import (
	"errors"
	"strings"
	"testing"

	"github.com/authbench/authbench/runapi"
)

// TestRequestsSetting: --requests needs a model agent and a known
// decider; it is a setting of the out dir (an out dir of another decider,
// or of none, is refused), and it is set on every task request but the
// unconstrained source's.
func TestRequestsSetting(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Agent: "openai:m", Requests: "spec"}, ""},
		{Config{Agent: "oracle", Requests: "spec"}, ""},
		{Config{Agent: "oracle", Requests: "model:judge"}, "links no model client"},
		{Config{Agent: "installed:pi:m", Requests: "spec"}, ""},
		{Config{Agent: "openai:m", Requests: "maybe"}, "unknown decider"},
		{Config{Agent: "openai:m", MaxRequests: 3}, "need --requests"},
		{Config{Agent: "openai:m", Requests: "deny", MaxRequests: 5000}, "--max-requests"},
	} {
		err := c.cfg.checkRequests()
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
	with := (&Config{Agent: "openai:m", Requests: "spec"}).Settings()
	without := (&Config{Agent: "openai:m"}).Settings()
	var mm *SettingsMismatchError
	if err := compareSettings("out", without, with); !errors.As(err, &mm) || mm.Setting != "--requests" {
		t.Errorf("an out dir without requests resumed with them: %v", err)
	}
	if err := compareSettings("out", with, with); err != nil {
		t.Error(err)
	}
	var tr runapi.TaskRequest
	(&Config{Requests: "allow", MaxRequests: 2}).requestsOn(&tr)
	if tr.Requests != "allow" || tr.MaxRequests != 2 {
		t.Errorf("%+v", tr)
	}
}
