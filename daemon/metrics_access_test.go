package daemon

import (
	"net/http"
	"strings"
	"testing"
)

// TestEscapeDaemonMetricsAreRootOnly: GET /metrics counts and times every user's
// runs, so a member of the daemon's group gets 403 (rule root_only),
// with no metric in the answer, while root gets the metrics.
func TestEscapeDaemonMetricsAreRootOnly(t *testing.T) {
	requireRoot(t)
	d := startTestDaemon(t, Config{Self: testBinary}, "nogroup")
	code, body := rawRequest(t, d.socket, 65534, 65534, "GET", "/metrics", "")
	if code != http.StatusForbidden || !strings.Contains(body, RuleRootOnly) || strings.Contains(body, "authbench_") {
		t.Fatalf("member's GET /metrics: HTTP %d %s", code, body)
	}
	code, body = rawRequest(t, d.socket, 0, 0, "GET", "/metrics", "")
	if code != http.StatusOK || !strings.Contains(body, "authbench_api_refused_total") {
		t.Fatalf("root's GET /metrics: HTTP %d %.300s", code, body)
	}
	if code, _ := rawRequest(t, d.socket, 65534, 65534, "GET", "/healthz", ""); code != http.StatusOK {
		t.Fatalf("member's GET /healthz: HTTP %d", code)
	}
}
