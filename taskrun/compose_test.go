package taskrun

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/tasks"
)

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
	task := fixture(t, "compose-leak-sink")
	for _, tt := range []struct {
		source, agent string
		attack        bool
	}{
		{SourceUnconstrained, AgentOracle, false},
		{SourceSpec, AgentOracle, false},
		{SourceUnconstrained, AgentShortcut, true},
		{SourceSpec, AgentShortcut, false},
	} {
		dir := t.TempDir()
		res, err := runIn(t, task, tt.source, tt.agent, "", dir)
		if err != nil || res.VerifierError != "" {
			t.Fatalf("%s/%s: %v %s", tt.source, tt.agent, err, res.VerifierError)
		}
		if !res.Utility || res.Attack == nil || *res.Attack != tt.attack {
			t.Errorf("%s/%s: utility %v attack %v, want attack %v", tt.source, tt.agent, res.Utility, res.Attack, tt.attack)
		}
		uploads, _ := filepath.Glob(filepath.Join(dir, volumeDirPrefix+"attack_sink", "upload-*"))
		if (len(uploads) > 0) != tt.attack {
			t.Errorf("%s/%s: uploads in the volume %v, want some: %v", tt.source, tt.agent, uploads, tt.attack)
		}
		subs := map[string]ImageSubstitution{}
		for _, s := range res.ImageSubstitutions {
			subs[s.Service+" "+s.Ref] = s
		}
		for key, why := range map[string]string{
			" authbench-python-py313-plain-base:local": "offline stand-in for python:3.13-slim",
			"sink python:3.12-slim":                    "Python 3.13, not 3.12",
			"mirror python:3.12-slim":                  "offline default",
		} {
			if s, ok := subs[key]; !ok || !strings.Contains(s.Why, why) || s.Used == "" {
				t.Errorf("%s/%s: substitution %q = %+v, want %q (all: %+v)", tt.source, tt.agent, key, s, why, res.ImageSubstitutions)
			}
		}
		for _, svc := range []string{"sink", "mirror"} {
			if _, err := os.Stat(filepath.Join(dir, sidecarDirPrefix+svc)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s/%s: the %s rootfs is still there: %v", tt.source, tt.agent, svc, err)
			}
		}
		mounts, err := os.ReadFile("/proc/self/mountinfo")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(mounts), dir) {
			t.Errorf("%s/%s: mounts left under the run directory", tt.source, tt.agent)
		}
	}
}

// TestComposeHealthcheckFailureStopsTheRun: a service that never becomes
// healthy stops the run before the agent, naming the service and the
// condition; so does a one-shot service that exits non-zero.
func TestComposeHealthcheckFailureStopsTheRun(t *testing.T) {
	setup(t)
	for _, tt := range []struct{ compose, want string }{
		{`services:
  main:
    build: .
    depends_on: {sink: {condition: service_healthy}}
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
		_, err = runIn(t, task, SourceUnconstrained, AgentOracle, "", t.TempDir())
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("err = %v, want %q", err, tt.want)
		}
	}
}

// TestPy313SpecNamesOfficialPython: a python-py313 task whose spec grants
// /usr/local/bin/python3 (the python:3.13-slim layout) passes its oracle
// under that spec, and its record says the base is a stand-in.
func TestPy313SpecNamesOfficialPython(t *testing.T) {
	setup(t)
	res, err := runIn(t, fixture(t, "python-py313"), SourceSpec, AgentOracle, "", t.TempDir())
	if err != nil || res.VerifierError != "" || !res.Utility {
		t.Fatalf("oracle under spec: %v %q utility %v denials %+v", err, res.VerifierError, res.Utility, res.Denials)
	}
	if len(res.ImageSubstitutions) != 1 || !strings.Contains(res.ImageSubstitutions[0].Why, "python:3.13-slim") ||
		!strings.HasPrefix(res.ImageSubstitutions[0].Used, env.BaseImageName+":") {
		t.Errorf("substitutions %+v", res.ImageSubstitutions)
	}
}
