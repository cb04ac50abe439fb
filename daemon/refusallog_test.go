package daemon

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// TestRequestRefusalsAreLogged: a 403 decided on the request (not on the
// connection) is logged once with the peer's uid, pid and rule and
// counted; and no env value of a request ever reaches the log.
func TestRequestRefusalsAreLogged(t *testing.T) {
	requireRoot(t)
	core, logs := observer.New(zapcore.InfoLevel)
	d := startTestDaemon(t, Config{Self: testBinary, Log: zap.New(core)}, "nogroup")
	code, body := rawRequest(t, d.socket, 65534, 65534, "POST", "/v1/runs",
		`{"exec":{"command":["/bin/true"],"uid":0,"allow_root":true,"env":["API_KEY=hunter2"]}}`)
	if code != http.StatusForbidden || !strings.Contains(body, RuleOwnIdentity) {
		t.Fatalf("member asking for root: HTTP %d %s", code, body)
	}
	refused := logs.FilterMessage("request refused").All()
	if len(refused) != 1 {
		t.Fatalf("want the refusal logged once, got %d", len(refused))
	}
	f := refused[0].ContextMap()
	if f["rule"] != RuleOwnIdentity || fmt.Sprint(f["uid"]) != "65534" || fmt.Sprint(f["pid"]) == "0" {
		t.Fatalf("refusal log fields: %v", f)
	}
	if n := testCounterValue(t, d, "authbench_api_refused_total"); n < 1 {
		t.Fatalf("refusal not counted: %v", n)
	}
	code, body = rawRequest(t, d.socket, 65534, 65534, "POST", "/v1/runs", `{"exec":{"command":["/bin/true"],"env":["API_KEY=hunter2"]}}`)
	if code != http.StatusCreated {
		t.Fatalf("member's own run: HTTP %d %s", code, body)
	}
	for _, e := range logs.All() {
		if line := fmt.Sprint(e.Message, e.ContextMap()); strings.Contains(line, "hunter2") {
			t.Errorf("an env value was logged: %s", line)
		}
	}
}
