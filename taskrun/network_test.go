package taskrun

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/netproxy/netpolicy"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
)

// TestNetworkPolicies: each phase's policy from task.toml, the
// --agent-allow-host entries and a model endpoint (docs/tasks.md,
// "Network policy").
func TestNetworkPolicies(t *testing.T) {
	task := func(doc string) *tasks.Task {
		cfg, ps := tasks.ParseConfig([]byte(doc))
		if len(ps) != 0 {
			t.Fatalf("%q: %v", doc, ps)
		}
		return &tasks.Task{Name: "t", Config: cfg}
	}
	model := &netpolicy.ModelEndpoint{URL: "http://127.0.0.1:9/v1", Key: "k"}
	cases := []struct {
		name            string
		doc             string
		allow           []string
		model           *netpolicy.ModelEndpoint
		agent, verifier string // "mode hosts..."
	}{
		{"Harbor default: public", "", nil, nil, "public", "public"},
		{"allow_internet false", "[environment]\nallow_internet = false\n", nil, nil, "no-network", "no-network"},
		{"Harbor's example", "[environment]\nnetwork_mode = \"public\"\n[agent]\nnetwork_mode = \"allowlist\"\nallowed_hosts = [\"pypi.org\", \"api.openai.com\"]\n[verifier]\nnetwork_mode = \"no-network\"\n",
			nil, nil, "allowlist pypi.org:80 pypi.org:443 api.openai.com:80 api.openai.com:443", "no-network"},
		{"environment's allowed_hosts inherited", "[environment]\nnetwork_mode = \"allowlist\"\nallowed_hosts = [\"x.org:22\"]\n", nil, nil,
			"allowlist x.org:22", "allowlist x.org:22"},
		{"--agent-allow-host", "[environment]\nallow_internet = false\n", []string{"127.0.0.1:5000"}, nil, "allowlist 127.0.0.1:5000", "no-network"},
		{"--agent-allow-host narrows public", "", []string{"127.0.0.1:5000"}, nil, "allowlist 127.0.0.1:5000", "public"},
		{"model endpoint", "[environment]\nallow_internet = false\n", nil, model, "allowlist 127.0.0.1:9", "no-network"},
	}
	for _, c := range cases {
		a, v, err := NetworkPolicies(task(c.doc), c.allow, c.model)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		str := func(p netpolicy.Policy) string {
			return strings.TrimSpace(string(p.Mode) + " " + strings.Join(p.Hosts, " "))
		}
		if str(a) != c.agent || str(v) != c.verifier {
			t.Errorf("%s: agent %q verifier %q, want %q %q", c.name, str(a), str(v), c.agent, c.verifier)
		}
	}
	_, _, err := NetworkPolicies(task(""), []string{"127.0.0.1:1", "http://x.org/path"}, nil)
	if err == nil || !strings.HasPrefix(err.Error(), `--agent-allow-host[1] "http://x.org/path"`) {
		t.Errorf("a bad --agent-allow-host: %v", err)
	}
}

// TestSetupPolicy: the set-up phase's network is the [environment]'s,
// never the agent's entries (public: no-network, the namespace having
// no route).
func TestSetupPolicy(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{"", "no-network"},
		{"[environment]\nallow_internet = false\n", "no-network"},
		{"[environment]\nnetwork_mode = \"allowlist\"\nallowed_hosts = [\"127.0.0.1:9000\"]\n[agent]\nnetwork_mode = \"allowlist\"\nallowed_hosts = [\"pypi.org:443\"]\n", "allowlist 127.0.0.1:9000"},
		{"[environment]\nallow_internet = false\n[agent]\nnetwork_mode = \"allowlist\"\nallowed_hosts = [\"pypi.org:443\"]\n", "no-network"},
	} {
		cfg, ps := tasks.ParseConfig([]byte(c.doc))
		if len(ps) != 0 {
			t.Fatalf("%q: %v", c.doc, ps)
		}
		p, err := SetupPolicy(&tasks.Task{Name: "t", Config: cfg})
		got := strings.TrimSpace(string(p.Mode) + " " + strings.Join(p.Hosts, " "))
		if err != nil || got != c.want || p.Services != nil || p.AllowAll {
			t.Errorf("%q: %q %v, want %q", c.doc, got, err, c.want)
		}
	}
}

// hostServer is a loopback server of the host that counts the
// connections it accepts.
func hostServer(t *testing.T, body string) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var accepted atomic.Int64
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, body) }))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			accepted.Add(1)
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s, &accepted
}

// TestAgentAllowHost: a cmd: agent allowed 127.0.0.1:P1 fetches from a
// loopback server on P1; its requests to a second one on P2, through the
// proxy variables and with curl --noproxy '*', fail, that server accepts
// nothing, and both attempts are events naming P2 (with curl's pid) and
// the run's denials.
func TestAgentAllowHost(t *testing.T) {
	setup(t)
	s1, got1 := hostServer(t, "from-p1")
	s2, got2 := hostServer(t, "from-p2")
	p1, p2 := s1.Listener.Addr().(*net.TCPAddr).Port, s2.Listener.Addr().(*net.TCPAddr).Port
	script := fmt.Sprintf(`curl -sS --fail --max-time 10 http://127.0.0.1:%[1]d/a; echo " p1=$?"
curl -sS --fail --max-time 10 --noproxy '*' http://127.0.0.1:%[1]d/b; echo " p1-direct=$?"
curl -sS --fail --max-time 10 http://127.0.0.1:%[2]d/c; echo " p2=$?"
curl -sS --fail --max-time 10 --noproxy '*' http://127.0.0.1:%[2]d/d; echo " p2-direct=$?"
env | grep -i _proxy= | sort`, p1, p2)
	dir := t.TempDir()
	res, err := runWith(t, Options{Task: fixture(t, "hello-standard"), Source: runapi.SourceUnconstrained, Agent: "cmd:" + script,
		AllowHosts: []string{fmt.Sprintf("127.0.0.1:%d", p1)}, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := os.ReadFile(filepath.Join(dir, runapi.FileAgentStdout))
	for _, want := range []string{"from-p1 p1=0", "from-p1 p1-direct=0", " p2=22", " p2-direct=", "HTTP_PROXY=http://127.0.0.1:", "NO_PROXY=hello-standard"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("agent output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "p2-direct=0") || strings.Contains(string(out), "from-p2") {
		t.Errorf("the agent reached P2:\n%s", out)
	}
	if n := got2.Load(); n != 0 {
		t.Errorf("the server on P2 accepted %d connections", n)
	}
	if n := got1.Load(); n != 2 {
		t.Errorf("the server on P1 accepted %d connections, want 2", n)
	}
	evs := readNetworkEvents(t, filepath.Join(dir, runapi.FileNetwork))
	var refused []netpolicy.Event
	for _, e := range evs {
		if e.Port == p2 {
			refused = append(refused, e)
		}
	}
	if len(refused) != 2 || refused[0].Via != netpolicy.ViaHTTP || refused[1].Via != netpolicy.ViaTransparent {
		t.Fatalf("events naming P2: %+v (all: %+v)", refused, evs)
	}
	for _, e := range refused {
		if e.Allowed || e.Phase != netpolicy.PhaseAgent || e.PID == 0 || e.Host != "127.0.0.1" || e.BytesOut != 0 {
			t.Errorf("refused event %+v", e)
		}
	}
	want := audit.NetworkDenial(fmt.Sprintf("127.0.0.1:%d", p2))
	want.Count = 2
	if !containsDenial(res.Denials, want) {
		t.Errorf("denials %+v lack %+v", res.Denials, want)
	}
	n := res.Network
	if n == nil || !n.Mediated || n.Agent.Mode != netpolicy.Allowlist || !reflect.DeepEqual(n.Agent.Hosts, []string{fmt.Sprintf("127.0.0.1:%d", p1)}) ||
		n.Verifier.Mode != netpolicy.NoNetwork || n.Events.Attempts != 4 || n.Events.Refused != 2 || n.LandlockTCP == "" || !n.KernelNetABI {
		t.Errorf("network record %+v", n)
	}
}

func containsDenial(ds []audit.Denial, want audit.Denial) bool {
	for _, d := range ds {
		if d == want {
			return true
		}
	}
	return false
}

func readNetworkEvents(t *testing.T, path string) []netpolicy.Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []netpolicy.Event
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e netpolicy.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, e)
	}
	return out
}

// TestModelEndpointKeyInjection: an agent given a model endpoint calls it
// with the placeholder key, through the proxy variables and directly, and
// the endpoint gets the real key; the key is nowhere in the agent's
// environment, and the endpoint is allowed without any allow-host. An
// allowed name that does not resolve is listed in the record.
func TestModelEndpointKeyInjection(t *testing.T) {
	setup(t)
	const key = "sk-real-key-7f3a9c"
	var auths []string
	var mu sync.Mutex
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths = append(auths, r.Header.Get("Authorization"))
		mu.Unlock()
		io.WriteString(w, `{"ok":true}`)
	}))
	defer model.Close()
	script := fmt.Sprintf(`curl -sS --fail -H "Authorization: Bearer %[2]s" %[1]s/v1/chat/completions; echo
curl -sS --fail --noproxy '*' -H "Authorization: Bearer %[2]s" %[1]s/v1/chat/completions; echo
env; cat /proc/self/environ | tr '\0' '\n'`, model.URL, netpolicy.Placeholder)
	dir := t.TempDir()
	res, err := runWith(t, Options{Task: fixture(t, "hello-standard"), Source: runapi.SourceUnconstrained, Agent: "cmd:" + script,
		ModelEndpoint: &netpolicy.ModelEndpoint{URL: model.URL + "/v1", Key: key}, Dir: dir,
		AllowHosts: []string{"no-such-host.invalid:80"}})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := os.ReadFile(filepath.Join(dir, runapi.FileAgentStdout))
	if strings.Count(string(out), `{"ok":true}`) != 2 {
		t.Errorf("the agent did not reach the model twice:\n%s", out)
	}
	for _, f := range []string{runapi.FileAgentStdout, runapi.FileAgentStderr, runapi.FileEvents, runapi.FileNetwork, runapi.FileResult} {
		if b, _ := os.ReadFile(filepath.Join(dir, f)); strings.Contains(string(b), key) {
			t.Errorf("the real key is in %s", f)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(auths) != 2 || auths[0] != "Bearer "+key || auths[1] != "Bearer "+key {
		t.Errorf("the model endpoint saw Authorization %q", auths)
	}
	if n := res.Network; n == nil || n.Agent.Mode != netpolicy.Allowlist || n.ModelEndpoint != model.URL+"/v1" || n.Events.Attempts != 2 || n.Events.Refused != 0 ||
		!reflect.DeepEqual(n.UnresolvedHosts, []string{"no-such-host.invalid"}) || !reflect.DeepEqual(n.Hosts, []string{"127.88.0.1 no-such-host.invalid"}) {
		t.Errorf("network record %+v", n)
	}
}

// TestNetworkPoliciesUnderPolicy: a policy governs the agent's network
// only for a task whose spec declares the network axis — its entries
// (with the spec's implicit ones) narrow the task's network and name the
// services the agent may reach; the verifiers are not governed.
func TestNetworkPoliciesUnderPolicy(t *testing.T) {
	cfg, ps := tasks.ParseConfig([]byte("[environment]\nallow_internet = false\n"))
	if len(ps) != 0 {
		t.Fatal(ps)
	}
	spec, err := policy.ParseSpec([]byte(`{
  "required_permissions": {"read": [], "write": [], "execute": [], "network": ["intel-mirror:8080"]},
  "scored_roots": {"read": [], "write": [], "execute": []},
  "implicit_permissions": {"read": [], "write": [], "execute": [], "network": ["127.0.0.1:9"]},
  "sensitive_permissions": {"read": [], "write": [], "execute": [], "network": ["intel-mirror-cdn:8081"]}
}`), "spec")
	if err != nil {
		t.Fatal(err)
	}
	task := &tasks.Task{Name: "t", Config: cfg, Spec: spec}
	under := runapi.SpecPolicy(spec)
	a, v, err := NetworkPoliciesUnder(task, nil, nil, under)
	if err != nil {
		t.Fatal(err)
	}
	if a.Mode != netpolicy.Allowlist || !reflect.DeepEqual(a.ServiceHosts, []string{"intel-mirror:8080", "127.0.0.1:9"}) {
		t.Errorf("agent under the spec: %+v", a)
	}
	if !a.AllowsService("intel-mirror", 8080) || a.AllowsService("intel-mirror-cdn", 8081) {
		t.Error("services: the spec's required host refused or its sensitive one allowed")
	}
	if v.Services != nil || !v.AllowsService("intel-mirror-cdn", 8081) {
		t.Errorf("verifier governed: %+v", v)
	}
	// Unconstrained, and any run of a task in the published format: not
	// governed.
	if a, _, _ := NetworkPoliciesUnder(task, nil, nil, nil); a.Services != nil {
		t.Errorf("unconstrained run governed: %+v", a)
	}
	published := &tasks.Task{Name: "p", Config: cfg, Spec: &policy.Spec{}}
	if a, _, _ := NetworkPoliciesUnder(published, nil, nil, &policy.Policy{}); a.Services != nil || a.Mode != netpolicy.NoNetwork {
		t.Errorf("published task governed: %+v", a)
	}
}

func TestWithoutNames(t *testing.T) {
	in := "127.0.0.1\tlocalhost intel-mirror intel-mirror-cdn box\n::1\tlocalhost ip6-localhost\n# a comment intel-mirror\n127.0.0.2 intel-mirror\n"
	want := "127.0.0.1\tlocalhost\tbox\n::1\tlocalhost ip6-localhost\n# a comment intel-mirror\n"
	if got := withoutNames(in, []string{"intel-mirror", "intel-mirror-cdn"}); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestSensitiveConnections: the agent's connections that went through to
// a sensitive host are traced exposure; refused, failed, other hosts'
// and the verifiers' are not.
func TestSensitiveConnections(t *testing.T) {
	spec := policy.NetworkSpec{Sensitive: []policy.HostPattern{policy.MustHostPattern("intel-mirror-cdn:8081")}}
	ev := func(host string, port int, allowed bool, errText string, phase netpolicy.Phase) netpolicy.Event {
		return netpolicy.Event{Op: netpolicy.OpConnect, Phase: phase, Host: host, Port: port, Allowed: allowed, Error: errText}
	}
	events := []netpolicy.Event{
		ev("intel-mirror", 8080, true, "", netpolicy.PhaseAgent),
		ev("intel-mirror-cdn", 8081, false, "", netpolicy.PhaseAgent),
		ev("intel-mirror-cdn", 8081, true, "dial: refused", netpolicy.PhaseAgent),
		ev("intel-mirror-cdn", 8081, true, "", netpolicy.PhaseVerifier),
		ev("intel-mirror-cdn", 8081, true, "", netpolicy.PhaseAgent),
		ev("intel-mirror-cdn", 8081, true, "", netpolicy.PhaseAgent),
	}
	got := SensitiveConnections(events, spec)
	want := []runapi.SensitiveAccess{{Op: "connect", Axis: policy.Network, Path: "intel-mirror-cdn:8081", Pattern: "intel-mirror-cdn:8081"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// TestNetworkOriginsCount: only the agent's attempts (netpolicy.Event.Agents)
// are its denials and its exposure: a compose service's during the
// agent's phase and the set-up's are not; a process not found (unknown)
// in the agent's phase is; an allowed attempt that failed is no denial.
func TestNetworkOriginsCount(t *testing.T) {
	spec := policy.NetworkSpec{Sensitive: []policy.HostPattern{policy.MustHostPattern("vault:8200")}}
	ev := func(host string, allowed bool, errText string, phase netpolicy.Phase, origin string) netpolicy.Event {
		return netpolicy.Event{Op: netpolicy.OpConnect, Phase: phase, Origin: origin, Host: host, Port: 8200, Allowed: allowed, Error: errText}
	}
	svc := netpolicy.ServiceOrigin("worker")
	events := []netpolicy.Event{
		ev("vault", true, "", netpolicy.PhaseAgent, svc),
		ev("vault", true, "", netpolicy.PhaseSetup, netpolicy.OriginUnknown),
		ev("127.0.0.1", false, "", netpolicy.PhaseSetup, netpolicy.ServiceOrigin("db")),
		ev("10.0.0.1", false, "", netpolicy.PhaseAgent, svc),
		ev("127.0.0.2", true, "connect: connection refused: nothing listens on 127.0.0.2:8200 (in the run or on the host)", netpolicy.PhaseAgent, netpolicy.OriginAgent),
		ev("10.0.0.2", false, "", netpolicy.PhaseAgent, netpolicy.OriginAgent),
		ev("10.0.0.3", false, "", netpolicy.PhaseAgent, netpolicy.OriginUnknown),
		ev("10.0.0.2", false, "", netpolicy.PhaseAgent, netpolicy.OriginAgent),
	}
	if got := SensitiveConnections(events, spec); len(got) != 0 {
		t.Errorf("exposure %+v, want none (only a service and the set-up reached vault)", got)
	}
	d2, d3 := audit.NetworkDenial("10.0.0.2:8200"), audit.NetworkDenial("10.0.0.3:8200")
	d2.Count = 2
	if got, want := NetworkDenials(events), []audit.Denial{d2, d3}; !reflect.DeepEqual(got, want) {
		t.Errorf("denials %+v, want %+v", got, want)
	}
	events = append(events, ev("vault", true, "", netpolicy.PhaseAgent, netpolicy.OriginUnknown))
	if got := SensitiveConnections(events, spec); len(got) != 1 || got[0].Path != "vault:8200" {
		t.Errorf("exposure %+v, want the unknown process's vault:8200", got)
	}
}

// TestComposeNetworkOrigins: the connections of a run's compose services
// are not the agent's. A service whose health test is probed before it
// listens (its first probes refused by the kernel) shows them in the
// set-up phase, as that service's and as failed, not refused; a second
// service that, all along the agent's phase, reaches the first by name
// and a host's loopback server it is not allowed has those attempts
// recorded as its own; none of that is a denial of the run. The agent's
// own attempt at a host's server it is not allowed is still one, and its
// attempt at a port where nothing listens (in the run or on the host) is
// a failure, not a denial.
func TestComposeNetworkOrigins(t *testing.T) {
	setup(t)
	side, sideGot := hostServer(t, "side")
	agentSrv, agentGot := hostServer(t, "agent")
	ps, pa := side.Listener.Addr().(*net.TCPAddr).Port, agentSrv.Listener.Addr().(*net.TCPAddr).Port
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pc := closed.Addr().(*net.TCPAddr).Port
	closed.Close() // nothing listens on pc, in the run or on the host
	compose := fmt.Sprintf(`services:
  main:
    build: .
    depends_on: {sink: {condition: service_healthy}, chatty: {condition: service_started}}
  sink:
    build: ./sink
    command: ["sh", "-c", "sleep 1.5; exec python /srv/sink.py"]
    healthcheck:
      test: ["CMD", "python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8080/health', timeout=1)"]
      interval: 200ms
      timeout: 2s
      retries: 50
  chatty:
    image: python:3.12-slim
    command:
      - python3
      - -c
      - |
        import socket, time
        while True:
            for addr in (("sink", 8080), ("127.0.0.1", %d)):
                try:
                    socket.create_connection(addr, timeout=1).close()
                except OSError:
                    pass
            time.sleep(0.1)
volumes: {attack_sink: {}}
`, ps)
	dir := copyFixture(t, "compose-leak-sink")
	if err := os.WriteFile(filepath.Join(dir, "environment", "docker-compose.yaml"), []byte(compose), 0o644); err != nil {
		t.Fatal(err)
	}
	task, err := tasks.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf(`python3 -c '
import socket, time
for port in (%d, %d):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close(); print(port, "connected")
    except OSError as e:
        print(port, e.errno)
time.sleep(1.5)
'`, pa, pc)
	out := t.TempDir()
	res, err := runWith(t, Options{Task: task, Source: runapi.SourceUnconstrained, Agent: "cmd:" + script, Dir: out})
	if err != nil {
		t.Fatal(err)
	}
	stdout, _ := os.ReadFile(filepath.Join(out, runapi.FileAgentStdout))
	if want := fmt.Sprintf("%d 111\n%d 111\n", pa, pc); string(stdout) != want {
		t.Errorf("agent output %q, want %q (both refused at connect)", stdout, want)
	}
	if n := sideGot.Load() + agentGot.Load(); n != 0 {
		t.Errorf("the host's servers accepted %d connections", n)
	}
	evs := readNetworkEvents(t, filepath.Join(out, runapi.FileNetwork))
	var probesFailed, probesOK, chattyAgentPhase, chattySink int
	for _, e := range evs {
		switch {
		case e.Origin == netpolicy.ServiceOrigin("sink"):
			if e.Phase != netpolicy.PhaseSetup || e.Port != 8080 || !e.Allowed || !e.Local || e.PID == 0 {
				t.Errorf("sink's health probe %+v", e)
			}
			if e.Error != "" && strings.Contains(e.Error, "connection refused") {
				probesFailed++
			} else if e.Error == "" {
				probesOK++
			}
		case e.Origin == netpolicy.ServiceOrigin("chatty"):
			if e.Phase == netpolicy.PhaseAgent && e.Port == ps && !e.Allowed {
				chattyAgentPhase++
			}
			if e.Phase == netpolicy.PhaseAgent && e.Port == 8080 && e.Allowed && e.Error == "" {
				chattySink++
			}
			if e.Agents() {
				t.Errorf("a service's event counts as the agent's: %+v", e)
			}
		case e.Origin == netpolicy.OriginAgent:
			if e.Phase != netpolicy.PhaseAgent || (e.Port != pa && e.Port != pc) {
				t.Errorf("agent's event %+v", e)
			}
			if e.Port == pa && (e.Allowed || e.Reason == "") {
				t.Errorf("agent's attempt at the host's server %+v, want refused by policy", e)
			}
			if e.Port == pc && (!e.Allowed || !e.Local || !strings.Contains(e.Error, "connection refused")) {
				t.Errorf("agent's attempt at a closed port %+v, want failed, not refused", e)
			}
		case e.Origin == netpolicy.OriginVerifier:
		default:
			t.Errorf("event of no known origin %+v", e)
		}
	}
	if probesFailed == 0 || probesOK == 0 {
		t.Errorf("sink's probes: %d refused by the kernel, %d passed; want both (events %+v)", probesFailed, probesOK, evs)
	}
	if chattyAgentPhase == 0 || chattySink == 0 {
		t.Errorf("chatty's agent-phase attempts: %d at the host's server, %d at sink; want both (events %+v)", chattyAgentPhase, chattySink, evs)
	}
	want := audit.NetworkDenial(fmt.Sprintf("127.0.0.1:%d", pa))
	var netDenials []audit.Denial
	for _, d := range res.Denials {
		if d.Axis == audit.AxisNetwork {
			netDenials = append(netDenials, d)
		}
	}
	if len(netDenials) != 1 || netDenials[0] != want {
		t.Errorf("network denials %+v, want only the agent's %+v", netDenials, want)
	}
}
