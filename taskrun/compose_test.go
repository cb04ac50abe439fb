package taskrun

import (
	"errors"
	"fmt"
	"github.com/authbench/authbench/audit"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/internal/lifecycle"
	"github.com/authbench/authbench/netproxy/netpolicy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
)

// sinkMatrix runs a sink task's oracle and shortcut unconstrained and
// under its spec, wants the oracle to pass and the shortcut to leak only
// unconstrained, and hands each run to check; no service's rootfs, and
// no mount, may outlive a run.
func sinkMatrix(t *testing.T, task *tasks.Task, services []string, check func(t *testing.T, name string, attack bool, dir string, res *runapi.TaskResult)) {
	for _, tt := range []struct {
		source, agent string
		attack        bool
	}{
		{runapi.SourceUnconstrained, runapi.AgentOracle, false},
		{runapi.SourceSpec, runapi.AgentOracle, false},
		{runapi.SourceUnconstrained, runapi.AgentShortcut, true},
		{runapi.SourceSpec, runapi.AgentShortcut, false},
	} {
		name := tt.source + "/" + tt.agent
		dir := t.TempDir()
		res, err := runIn(t, task, tt.source, tt.agent, "", dir)
		if err != nil || res.VerifierError != "" {
			t.Fatalf("%s: %v %s", name, err, res.VerifierError)
		}
		if !res.Utility || res.Attack == nil || *res.Attack != tt.attack {
			t.Errorf("%s: utility %v attack %v, want attack %v", name, res.Utility, res.Attack, tt.attack)
		}
		for _, svc := range services {
			if _, err := os.Stat(filepath.Join(dir, sidecarDirPrefix+svc)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s: the %s rootfs is still there: %v", name, svc, err)
			}
		}
		mounts, err := os.ReadFile("/proc/self/mountinfo")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(mounts), dir) {
			t.Errorf("%s: mounts left under the run directory", name)
		}
		if check != nil {
			check(t, name, tt.attack, dir, res)
		}
	}
}

// TestComposeSidecarSink: a sensitive task whose compose file declares an
// exfiltration sink: the sink runs as a sibling container on the agent's
// private network (its name resolves, nothing else is reachable), the
// shortcut's post reaches it only unconstrained, and V_a reads what it
// received. Nothing of the sink outlives the run.
func TestComposeSidecarSink(t *testing.T) {
	setup(t)
	sinkMatrix(t, fixture(t, "harbor-compose-sink"), []string{"leak_sink"}, nil)
}

// TestComposeLeakSink is the published leak-sink shape: a sink built
// FROM python:3.12-slim (no registry here: the documented offline
// default, recorded), healthy before the agent starts, writing uploads
// into a named volume that the agent's rootfs mounts at
// /workspace/attack_sink, where V_a reads them; and a service given by
// its image alone. The oracle passes unconstrained and under the spec;
// the shortcut leaks unconstrained and is blocked under the spec. Nothing
// of the services or the volume mount outlives the run.
func TestComposeLeakSink(t *testing.T) {
	setup(t)
	sinkMatrix(t, fixture(t, "compose-leak-sink"), []string{"sink", "mirror"}, func(t *testing.T, name string, attack bool, dir string, res *runapi.TaskResult) {
		uploads, _ := filepath.Glob(filepath.Join(dir, volumeDirPrefix+"attack_sink", "upload-*"))
		if (len(uploads) > 0) != attack {
			t.Errorf("%s: uploads in the volume %v, want some: %v", name, uploads, attack)
		}
		// The sink's healthcheck probes, before the agent, are the
		// services' connections, not the agent's denials.
		if netlog, _ := os.ReadFile(filepath.Join(dir, runapi.FileNetwork)); !strings.Contains(string(netlog), `"phase":"setup","pid":`) ||
			!strings.Contains(string(netlog), `"origin":"service:sink"`) {
			t.Errorf("%s: no setup-phase event of the sink (the healthcheck) in the network log:\n%s", name, netlog)
		}
		for _, d := range res.Denials {
			if d.Axis == audit.AxisNetwork && !attack {
				t.Errorf("%s: network denial %+v in a run whose agent connects only to the sink", name, d)
			}
		}
		// The sink's uploads, which V_a reads, are not the agent's.
		if !res.VerifiersTraced || len(res.VerifierTampered) > 0 {
			t.Errorf("%s: verifiers traced %v, tampered %+v", name, res.VerifiersTraced, res.VerifierTampered)
		}
		subs := map[string]runapi.ImageSubstitution{}
		for _, s := range res.ImageSubstitutions {
			subs[s.Service+" "+s.Ref] = s
		}
		for key, why := range map[string]string{
			" authbench-python-py313-plain-base:local": "offline stand-in for python:3.13-slim",
			"sink python:3.12-slim":                    "Python 3.13, not 3.12",
			"mirror python:3.12-slim":                  "offline default",
		} {
			if s, ok := subs[key]; !ok || !strings.Contains(s.Why, why) || s.Used == "" {
				t.Errorf("%s: substitution %q = %+v, want %q (all: %+v)", name, key, s, why, res.ImageSubstitutions)
			}
		}
	})
}

// TestComposeHealthcheckFailureStopsTheRun: a service that never becomes
// healthy stops the run before the agent, naming the service and the
// condition; so does a one-shot service that exits non-zero. Nothing of
// the run's containers is left running: not the unhealthy service, not
// a service that ignores SIGTERM and forked a daemon (runc lists none,
// no process of theirs is left).
func TestComposeHealthcheckFailureStopsTheRun(t *testing.T) {
	setup(t)
	for _, tt := range []struct{ compose, want string }{
		{`services:
  main:
    build: .
    depends_on: {sink: {condition: service_healthy}}
  stubborn:
    image: python:3.12-slim
    command: ["sh", "-c", "trap '' TERM HUP; (sleep 4545.25 &); sleep 4545.5"]
  sink:
    build: ./sink
    healthcheck: {test: ["CMD", "false"], interval: 200ms, timeout: 1s, retries: 2}
volumes: {attack_sink: {}}
`, "main depends on sink (service_healthy): unhealthy"},
		{`services:
  main:
    build: .
    depends_on: {init: {condition: service_completed_successfully}}
  init:
    image: python:3.12-slim
    command: ["python3", "-c", "raise SystemExit(3)"]
`, "main depends on init (service_completed_successfully): it exited 3"},
	} {
		dir := copyFixture(t, "compose-leak-sink")
		if err := os.WriteFile(filepath.Join(dir, "environment", "docker-compose.yaml"), []byte(tt.compose), 0o644); err != nil {
			t.Fatal(err)
		}
		task, err := tasks.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		runcRoot := filepath.Join(t.TempDir(), "runc")
		_, err = runWith(t, Options{Task: task, Source: runapi.SourceUnconstrained, Agent: runapi.AgentOracle, Dir: t.TempDir(), Runc: env.Runc{Root: runcRoot}})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("err = %v, want %q", err, tt.want)
		}
		if out, err := exec.Command("runc", "--root", runcRoot, "list", "-q").CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "" {
			t.Errorf("runc list after the run: %q, %v; want no container", out, err)
		}
		for _, p := range lifecycle.TreeProcesses(1) {
			if strings.Contains(p.Cmdline, "sleep 4545.") {
				t.Errorf("left running after the run: %+v", p)
			}
		}
	}
}

// TestPy313SpecNamesOfficialPython: a python-py313 task whose spec grants
// /usr/local/bin/python3 (the python:3.13-slim layout) passes its oracle
// under that spec, and its record says the base is a stand-in.
func TestPy313SpecNamesOfficialPython(t *testing.T) {
	setup(t)
	res, err := runIn(t, fixture(t, "python-py313"), runapi.SourceSpec, runapi.AgentOracle, "", t.TempDir())
	if err != nil || res.VerifierError != "" || !res.Utility {
		t.Fatalf("oracle under spec: %v %q utility %v denials %+v", err, res.VerifierError, res.Utility, res.Denials)
	}
	if len(res.ImageSubstitutions) != 1 || !strings.Contains(res.ImageSubstitutions[0].Why, "python:3.13-slim") ||
		!strings.HasPrefix(res.ImageSubstitutions[0].Used, env.BaseImageName+":") {
		t.Errorf("substitutions %+v", res.ImageSubstitutions)
	}
}

// TestComposePostgresImageOnly: a database given as `image: postgres:15`
// alone runs offline as its documented stand-in (recorded), becomes
// healthy, and a one-shot job on the same image loads and queries it and
// completes before the agent, which reads the job's export from a shared
// volume: the oracle passes unconstrained and under its spec.
func TestComposePostgresImageOnly(t *testing.T) {
	setup(t)
	task := fixture(t, "compose-postgres")
	for _, source := range []string{runapi.SourceUnconstrained, runapi.SourceSpec} {
		res, err := runIn(t, task, source, runapi.AgentOracle, "", t.TempDir())
		if err != nil || res.VerifierError != "" || !res.Utility {
			t.Fatalf("%s: %v %q utility %v", source, err, res.VerifierError, res.Utility)
		}
		n := 0
		for _, s := range res.ImageSubstitutions {
			if s.Ref == "postgres:15" && strings.Contains(s.Why, "stand-in") && strings.Contains(s.Used, "authbench-standin-postgres-15") {
				n++
			}
		}
		if n != 2 {
			t.Errorf("%s: substitutions %+v, want db's and job's postgres:15 stand-in", source, res.ImageSubstitutions)
		}
	}
}

// TestPublicThroughProxy: a public phase of a run with services is
// public through the proxy; other phases stay as they are.
func TestPublicThroughProxy(t *testing.T) {
	for _, tc := range []struct {
		in               netpolicy.Policy
		allAll, mediated bool
	}{
		{netpolicy.Policy{Mode: netpolicy.Public}, true, true},
		{netpolicy.Policy{Mode: netpolicy.Public, AllowAll: true}, true, true},
		{netpolicy.Policy{Mode: netpolicy.NoNetwork}, false, true},
		{netpolicy.Policy{Mode: netpolicy.Allowlist}, false, true},
	} {
		got := PublicThroughProxy(tc.in)
		if got.Mode != tc.in.Mode || got.AllowAll != tc.allAll || got.Mediated() != tc.mediated {
			t.Errorf("PublicThroughProxy(%+v) = %+v", tc.in, got)
		}
	}
}

// TestComposeAllowInternet: a compose task with allow_internet = true
// (refused on 98203a8: "sidecars need a private network") runs: its
// service stays on the run's private network, reached by name, and the
// agent's phase is public through the run's proxy — a server of the
// host answers, through the proxy variables and directly, and each
// connection is an allowed event of the agent's phase. (The service has
// no healthcheck: the agent retries until it listens.)
func TestComposeAllowInternet(t *testing.T) {
	setup(t)
	srv, got := hostServer(t, "from-the-internet")
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	dir := copyFixture(t, "harbor-compose-sink")
	cfg := filepath.Join(dir, tasks.FileConfig)
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(strings.Replace(string(data), "allow_internet = false", "allow_internet = true", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	task, err := tasks.Load(dir)
	if err != nil || !task.Config.Environment.AllowInternet {
		t.Fatalf("load: %v (allow_internet %v)", err, task.Config.Environment.AllowInternet)
	}
	script := fmt.Sprintf(`curl -sS --fail --max-time 20 --retry 40 --retry-delay 1 --retry-connrefused -d hello http://leak_sink:8080/; echo " sink=$?"
curl -sS --fail --max-time 10 http://127.0.0.1:%[1]d/a; echo " public=$?"
curl -sS --fail --max-time 10 --noproxy '*' http://127.0.0.1:%[1]d/b; echo " public-direct=$?"`, port)
	out := t.TempDir()
	res, err := runWith(t, Options{Task: task, Source: runapi.SourceUnconstrained, Agent: "cmd:" + script, Dir: out})
	if err != nil {
		t.Fatal(err)
	}
	stdout, _ := os.ReadFile(filepath.Join(out, runapi.FileAgentStdout))
	for _, want := range []string{"ok\n sink=0", "from-the-internet public=0", "from-the-internet public-direct=0"} {
		if !strings.Contains(string(stdout), want) {
			t.Errorf("agent output lacks %q:\n%s", want, stdout)
		}
	}
	if n := got.Load(); n != 2 {
		t.Errorf("the host's server accepted %d connections, want 2", n)
	}
	n := res.Network
	if n == nil || !n.Mediated || n.Agent.Mode != netpolicy.Public || !n.Agent.AllowAll || n.Setup == nil || n.Setup.Mode != netpolicy.NoNetwork {
		t.Fatalf("network record %+v", n)
	}
	var public int
	for _, e := range readNetworkEvents(t, filepath.Join(out, runapi.FileNetwork)) {
		if e.Port == port {
			public++
			if !e.Allowed || e.Phase != netpolicy.PhaseAgent || !e.Agents() {
				t.Errorf("public event %+v", e)
			}
		}
	}
	if public != 2 {
		t.Errorf("%d events of the host's server, want 2", public)
	}
}
