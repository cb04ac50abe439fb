package policy

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func hosts(list ...string) []HostPattern {
	out := make([]HostPattern, len(list))
	for i, s := range list {
		out[i] = MustHostPattern(s)
	}
	return out
}

// TestNetworkTally: the network axis's sets, case by case
// (docs/scoring.md, "The network axis").
func TestNetworkTally(t *testing.T) {
	mirror := "mirror.local:8080"
	sink := "uploads.mirror-cdn.local:443"
	tests := []struct {
		name string
		pol  []string
		spec NetworkSpec
		want axisTally
	}{
		{"exact", []string{mirror}, NetworkSpec{Required: hosts(mirror)},
			axisTally{granted: 1, required: 1, hit: 1}},
		{"nothing granted", nil, NetworkSpec{Required: hosts(mirror)},
			axisTally{required: 1}},
		{"wider port counts one more", []string{"mirror.local:*"}, NetworkSpec{Required: hosts(mirror)},
			axisTally{granted: 2, required: 1, hit: 1}},
		{"everything", []string{"*:*"}, NetworkSpec{Required: hosts(mirror), Sensitive: hosts(sink)},
			axisTally{granted: 3, required: 1, hit: 1, sens: 1, sensGranted: 1}},
		{"unrelated host", []string{mirror, "pypi.org:443"}, NetworkSpec{Required: hosts(mirror)},
			axisTally{granted: 2, required: 1, hit: 1}},
		{"sink granted", []string{mirror, sink}, NetworkSpec{Required: hosts(mirror), Sensitive: hosts(sink)},
			axisTally{granted: 2, required: 1, hit: 1, sens: 1, sensGranted: 1}},
		{"sink by a leading-label wildcard", []string{"*.mirror-cdn.local:443"}, NetworkSpec{Sensitive: hosts(sink)},
			axisTally{granted: 2, sens: 1, sensGranted: 1}},
		{"sensitive wildcard reached by one host", []string{"a.sink.local:443"}, NetworkSpec{Sensitive: hosts("*.sink.local:*")},
			axisTally{granted: 1, sens: 1, sensGranted: 1}},
		{"sink avoided", []string{mirror}, NetworkSpec{Required: hosts(mirror), Sensitive: hosts(sink)},
			axisTally{granted: 1, required: 1, hit: 1, sens: 1}},
		{"only sensitive, nothing granted", nil, NetworkSpec{Sensitive: hosts(sink)},
			axisTally{sens: 1}},
		{"required wildcard met in part", []string{"a.mirror.local:443"}, NetworkSpec{Required: hosts("*.mirror.local:443")},
			axisTally{granted: 1, required: 1}},
		{"required wildcard covered", []string{"*.local:443"}, NetworkSpec{Required: hosts("*.mirror.local:443")},
			axisTally{granted: 2, required: 1, hit: 1}},
		{"implicit removed", []string{mirror, "api.model.local:443"},
			NetworkSpec{Required: hosts(mirror, "api.model.local:443"), Implicit: hosts("api.model.local:443")},
			axisTally{granted: 1, required: 1, hit: 1}},
		{"implicit sensitive still exposure", []string{sink},
			NetworkSpec{Sensitive: hosts(sink), Implicit: hosts("*:443")},
			axisTally{sens: 1, sensGranted: 1}},
		{"address is not the name", []string{"127.0.0.1:8080"}, NetworkSpec{Required: hosts(mirror)},
			axisTally{granted: 1, required: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := networkTally(hosts(tt.pol...), tt.spec); got != tt.want {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

const networkSpecDoc = `{
  "required_permissions": {"read": ["/app/a"], "write": [], "execute": [], "network": ["mirror.local:8080"]},
  "scored_roots": {"read": ["/app"], "write": [], "execute": []},
  "implicit_permissions": {"read": [], "write": [], "execute": [], "network": ["api.model.local:443"]},
  "sensitive_permissions": {"read": ["/app/secret"], "write": [], "execute": [], "network": ["uploads.mirror-cdn.local:443"]}
}`

// TestScorePolicyNetworkAxis: a spec with network entries scores the
// axis, and a sensitive host granted counts in the exposure coverage
// beside the files.
func TestScorePolicyNetworkAxis(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"app/a", "app/secret"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(dir, f), nil, 0o644)
	}
	root, err := NewRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := ParseSpec([]byte(networkSpecDoc), "spec.json")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		policy   string
		net      AxisScore
		coverage float64
	}{
		{"spec's own", `{"read":["/app/a"],"write":[],"execute":[],"network":["mirror.local:8080"]}`, AxisScore{1, 1, 1}, 0},
		{"no network key", `{"read":["/app/a"],"write":[],"execute":[]}`, AxisScore{0, 0, 0}, 0},
		{"sink too", `{"read":["/app/a"],"write":[],"execute":[],"network":["mirror.local:8080","uploads.mirror-cdn.local:443"]}`,
			AxisScore{0.5, 1, 2.0 / 3}, 0.5},
		{"everything", `{"read":["/app/**"],"write":[],"execute":[],"network":["*:*"]}`,
			AxisScore{1.0 / 3, 1, 0.5}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pol, err := ParsePolicyFor([]byte(tt.policy), "p.json", spec)
			if err != nil {
				t.Fatal(err)
			}
			sc, err := ScorePolicy(pol, spec, root)
			if err != nil {
				t.Fatal(err)
			}
			if sc.Network == nil {
				t.Fatal("no network score")
			}
			if !near(sc.Network.Precision, tt.net.Precision) || !near(sc.Network.Recall, tt.net.Recall) || !near(sc.Network.F1, tt.net.F1) {
				t.Errorf("network %+v, want %+v", *sc.Network, tt.net)
			}
			if sc.SensitiveCoverage == nil || !near(*sc.SensitiveCoverage, tt.coverage) {
				t.Errorf("coverage %v, want %v", sc.SensitiveCoverage, tt.coverage)
			}
			data, _ := json.Marshal(sc)
			if !strings.Contains(string(data), `"network":{`) {
				t.Errorf("JSON without the network axis: %s", data)
			}
		})
	}
	// A spec without network entries has no network score, whatever the
	// policy grants, and its JSON is what it was.
	plain, err := ParseSpec([]byte(`{"required_permissions": {"read": ["/app/a"], "write": [], "execute": []},
  "scored_roots": {"read": ["/app"], "write": [], "execute": []},
  "implicit_permissions": {"read": [], "write": [], "execute": [], "network": ["api.model.local:443"]}}`), "plain.json")
	if err != nil {
		t.Fatal(err)
	}
	pol, err := ParsePolicyFor([]byte(`{"read":["/app/a"],"write":[],"execute":[],"network":["*:*"]}`), "p.json", plain)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := ScorePolicy(pol, plain, root)
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := json.Marshal(sc); sc.Network != nil || strings.Contains(string(data), "network") {
		t.Fatalf("unscored network axis shown: %s", data)
	}
	// A spec in the published format (no network key anywhere) makes a
	// policy with one invalid, as the published verifier does; without
	// one the policy scores as before.
	published, err := ParseSpec([]byte(`{"required_permissions": {"read": ["/app/a"], "write": [], "execute": []},
  "scored_roots": {"read": ["/app"], "write": [], "execute": []},
  "implicit_permissions": {"read": [], "write": [], "execute": []}}`), "published.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParsePolicyFor([]byte(`{"read":["/app/a"],"write":[],"execute":[],"network":[]}`), "p.json", published); err == nil ||
		!strings.Contains(err.Error(), "p.json: network: unknown key") {
		t.Fatalf("network key against a published spec: %v", err)
	}
	// A policy parsed for another task keeps its network entries; scored
	// against a published spec it is invalid all the same.
	pol, _ = ParsePolicyFor([]byte(`{"read":["/app/a"],"write":[],"execute":[],"network":[]}`), "p.json", spec)
	if sc, err := ScorePolicy(pol, published, root); err != nil || sc.Valid || !strings.Contains(sc.Error, "p.json: network: unknown key") {
		t.Fatalf("network policy against a published spec: %+v, %v", sc, err)
	}
	pol, _ = ParsePolicy([]byte(`{"read":["/app/a"],"write":[],"execute":[]}`), "p.json")
	if sc, err := ScorePolicy(pol, published, root); err != nil || !sc.Valid || sc.Axes[Read].F1 != 1 || sc.Network != nil {
		t.Fatalf("published policy against a published spec: %+v, %v", sc, err)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestParseNetworkEntries(t *testing.T) {
	spec, err := ParseSpec([]byte(networkSpecDoc), "spec.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := HostStrings(spec.Network.Required); len(got) != 1 || got[0] != "mirror.local:8080" {
		t.Errorf("required network %v", got)
	}
	if !spec.Network.Scored() || !spec.Network.Declared || len(spec.Network.Implicit) != 1 || len(spec.Network.Sensitive) != 1 {
		t.Errorf("network spec %+v", spec.Network)
	}
	pol, err := ParsePolicyFor([]byte(`{"read":[],"write":[],"execute":[],"network":["Mirror.Local:8080"]}`), "p.json", spec)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(pol)
	if string(out) != `{"execute":[],"network":["mirror.local:8080"],"read":[],"write":[]}` {
		t.Errorf("policy JSON %s", out)
	}
	pol, _ = ParsePolicy([]byte(`{"read":[],"write":[],"execute":[]}`), "p.json")
	if out, _ := json.Marshal(pol); string(out) != `{"execute":[],"read":[],"write":[]}` || pol.Network != nil {
		t.Errorf("policy without network: %s", out)
	}
	bad := []struct{ name, doc, field, msg string }{
		{"policy scheme", `{"read":[],"write":[],"execute":[],"network":["http://a.local:80"]}`, "network[0]", "scheme"},
		{"policy not array", `{"read":[],"write":[],"execute":[],"network":"a.local:80"}`, "network", "array of host:port strings"},
		{"policy number", `{"read":[],"write":[],"execute":[],"network":[80]}`, "network[0]", "must be a string"},
		{"policy duplicate", `{"read":[],"write":[],"execute":[],"network":["a.local:80","A.LOCAL.:80"]}`, "network[1]", "duplicates network[0]"},
	}
	for _, tt := range bad {
		_, err := ParsePolicyFor([]byte(tt.doc), "p.json", spec)
		checkProblem(t, tt.name, err, tt.field, tt.msg)
	}
	roots := strings.Replace(networkSpecDoc, `"scored_roots": {"read": ["/app"], "write": [], "execute": []}`,
		`"scored_roots": {"read": ["/app"], "write": [], "execute": [], "network": []}`, 1)
	_, err = ParseSpec([]byte(roots), "s.json")
	checkProblem(t, "scored roots", err, "scored_roots.network", "no scored roots")
	if _, err := ParseAnswerFor("```json\n{\"read\":[],\"write\":[],\"execute\":[],\"network\":[\"a.local:80\"]}\n```", spec); err != nil {
		t.Errorf("an answer with the network axis: %v", err)
	}
	sens := strings.Replace(networkSpecDoc, `"uploads.mirror-cdn.local:443"`, `"uploads.mirror-cdn.local"`, 1)
	_, err = ParseSpec([]byte(sens), "s.json")
	checkProblem(t, "sensitive no port", err, "sensitive_permissions.network[0]", "needs a port")
}

func checkProblem(t *testing.T, name string, err error, field, msg string) {
	t.Helper()
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Errorf("%s: want a *ValidationError, got %v", name, err)
		return
	}
	for _, p := range ve.Problems {
		if p.Field == field && strings.Contains(p.Msg, msg) {
			return
		}
	}
	t.Errorf("%s: want a problem at %q containing %q, got %v", name, field, msg, ve.Problems)
}
