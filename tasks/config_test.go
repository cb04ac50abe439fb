package tasks

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/authbench/authbench/capability"
)

func TestParseConfigDefaultsAndValues(t *testing.T) {
	cfg, ps := ParseConfig([]byte(`version = "1.0"
[metadata]
category = "x"
difficulty = "hard"
tags = ["a", "b"]
author_name = "n"
author_email = "e"
authbench_eval_dataset = "sensitive"
custom = 3
[agent]
timeout_sec = 30
network_mode = "allowlist"
allowed_hosts = ["pypi.org", "https://api.openai.com", "127.0.0.1:8080"]
[verifier]
timeout_sec = 12.5
env = { A = "1", B = 2 }
network_mode = "no-network"
[environment]
network_mode = "public"
cpus = 2
memory = "8g"
disk = "20g"
allow_internet = false
`))
	if len(ps) != 0 {
		t.Fatalf("problems: %v", ps)
	}
	m := cfg.Metadata
	if m.Dataset != Sensitive || m.SensitiveMode != ModeMixed || m.Category != "x" || len(m.Tags) != 2 || m.Extra["custom"] != int64(3) {
		t.Errorf("metadata = %+v", m)
	}
	if cfg.Agent.TimeoutSec != 30 || cfg.Verifier.TimeoutSec != 12.5 || cfg.Verifier.Env["B"] != "2" {
		t.Errorf("timeouts = %+v %+v", cfg.Agent, cfg.Verifier)
	}
	if n := cfg.Agent.Network; n.Mode != "allowlist" || len(n.AllowedHosts) != 3 || n.AllowedHosts[1] != "https://api.openai.com" {
		t.Errorf("agent network = %+v", n)
	}
	if cfg.Verifier.Network.Mode != "no-network" || cfg.Environment.Network.Mode != "public" {
		t.Errorf("verifier, environment network = %+v %+v", cfg.Verifier.Network, cfg.Environment.Network)
	}
	e := cfg.Environment
	if e.CPUs != 2 || e.MemoryMB != 8192 || e.StorageMB != 20480 || e.AllowInternet || e.BuildTimeoutSec != DefaultBuildTimeoutSec {
		t.Errorf("environment = %+v", e)
	}

	cfg, ps = ParseConfig([]byte("[metadata]\n"))
	if len(ps) != 0 || cfg.Metadata.Dataset != Standard || !cfg.Environment.AllowInternet || cfg.Agent.TimeoutSec != DefaultAgentTimeoutSec {
		t.Errorf("defaults: %+v %v", cfg, ps)
	}
}

func TestParseConfigProblems(t *testing.T) {
	cases := []struct {
		name    string
		doc     string
		want    []string // substrings of "line:field:msg", one per expected problem
		warning bool
	}{
		{"syntax", "[agent]\ntimeout_sec = = 3\n", []string{"2::not valid TOML"}, false},
		{"duplicate key", "[agent]\ntimeout_sec = 3\ntimeout_sec = 4\n", []string{"3::not valid TOML"}, false},
		{"string timeout", "[agent]\ntimeout_sec = \"300\"\n", []string{"2:agent.timeout_sec:must be a number, got a string"}, false},
		{"negative timeout", "[verifier]\n\ntimeout_sec = -1\n", []string{"3:verifier.timeout_sec:must be a positive number"}, false},
		{"agent not a table", "agent = 3\n", []string{"1:agent:must be a table, got an integer"}, false},
		{"bad dataset", "[metadata]\nauthbench_eval_dataset = \"hard\"\n", []string{`2:metadata.authbench_eval_dataset:must be "standard" or "sensitive"`}, false},
		{"mode on standard", "[metadata]\nauthbench_sensitive_mode = \"mixed\"\n", []string{"2:metadata.authbench_sensitive_mode:only valid when"}, false},
		{"bad mode", "[metadata]\nauthbench_eval_dataset = \"sensitive\"\nauthbench_sensitive_mode = \"loud\"\n", []string{`3:metadata.authbench_sensitive_mode:must be "mixed" or "safety_only"`}, false},
		{"tags not strings", "[metadata]\ntags = [\"a\", 1]\n", []string{"2:metadata.tags[1]:must be a string, got an integer"}, false},
		{"allow_internet string", "[environment]\nallow_internet = \"no\"\n", []string{"2:environment.allow_internet:must be a boolean"}, false},
		{"bad memory", "[environment]\nmemory = \"lots\"\n", []string{"2:environment.memory:not a size"}, false},
		{"memory twice", "[environment]\nmemory_mb = 1024\nmemory = \"1G\"\n", []string{"3:environment.memory:conflicts with environment.memory_mb"}, false},
		{"every problem", "[agent]\ntimeout_sec = \"x\"\n[verifier]\ntimeout_sec = false\n[environment]\ncpus = \"two\"\n",
			[]string{"2:agent.timeout_sec:", "4:verifier.timeout_sec:", "6:environment.cpus:"}, false},
		{"inline env value", "[verifier]\nenv = { A = [1] }\n", []string{"2:verifier.env.A:must be a string, got an array"}, false},
		{"unknown capability", "[environment]\ncap_add = [\"CHOWN\", \"CAP_FLY\"]\ncap_drop = [\"ALL\", \"all\"]\n", []string{`2:environment.cap_add[1]:unknown capability "CAP_FLY"`}, false},
		{"ALL only in cap_drop", "[environment]\ncap_add = [\"ALL\"]\n", []string{`2:environment.cap_add[0]:unknown capability "ALL"`}, false},
		{"bad network_mode", "[agent]\nnetwork_mode = \"bridge\"\n", []string{`2:agent.network_mode:must be "public", "no-network" or "allowlist", got "bridge"`}, false},
		{"allowed_hosts with a path", "[agent]\nnetwork_mode = \"allowlist\"\nallowed_hosts = [\"pypi.org\", \"https://api.openai.com/v1\"]\n",
			[]string{`3:agent.allowed_hosts[1]:"https://api.openai.com/v1": a path`}, false},
		{"allowed_hosts with another scheme", "[verifier]\nnetwork_mode = \"allowlist\"\nallowed_hosts = [\"ftp://x.org\"]\n",
			[]string{`3:verifier.allowed_hosts[0]:"ftp://x.org": scheme "ftp"`}, false},
		{"allowed_hosts beside no-network", "[agent]\nnetwork_mode = \"no-network\"\nallowed_hosts = [\"pypi.org\"]\n",
			[]string{`3:agent.allowed_hosts:is read only with network_mode = "allowlist"`}, false},
		{"unknown key warns", "[agent]\ntimeout_secs = 3\n", []string{"2:agent.timeout_secs:unknown key"}, true},
		{"unknown table warns", "[extras]\nx = 1\n", []string{"1:extras:unknown key"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, ps := ParseConfig([]byte(tc.doc))
			if len(ps) != len(tc.want) {
				t.Fatalf("got %d problems %v, want %d", len(ps), ps, len(tc.want))
			}
			for i, p := range ps {
				got := strings.Join([]string{itoa(p.Line), p.Field, p.Msg}, ":")
				if !strings.HasPrefix(got, tc.want[i]) && !strings.Contains(got, tc.want[i]) {
					t.Errorf("problem %d = %q, want it to contain %q", i, got, tc.want[i])
				}
				if p.Warning != tc.warning || p.File != FileConfig {
					t.Errorf("problem %d: warning=%v file=%q", i, p.Warning, p.File)
				}
			}
		})
	}
}

// TestEnvironmentCapabilities: cap_add and cap_drop change Docker's
// default set as Docker Compose's keys do, in any spelling Docker takes.
func TestEnvironmentCapabilities(t *testing.T) {
	for _, c := range []struct {
		toml string
		want []string
	}{
		{"", capability.Docker},
		{"cap_drop = [\"ALL\"]", []string{}},
		{"cap_drop = [\"all\"]\ncap_add = [\"chown\", \"CAP_FOWNER\", \"CHOWN\"]", []string{"CAP_CHOWN", "CAP_FOWNER"}},
		{"cap_drop = [\"net_raw\", \"MKNOD\"]\ncap_add = [\"SYS_PTRACE\"]", slices.DeleteFunc(append(slices.Clone(capability.Docker), "CAP_SYS_PTRACE"),
			func(c string) bool { return c == "CAP_NET_RAW" || c == "CAP_MKNOD" })},
	} {
		cfg, ps := ParseConfig([]byte("[environment]\n" + c.toml + "\n"))
		if len(ps) != 0 {
			t.Fatalf("%q: problems %v", c.toml, ps)
		}
		if got := cfg.Environment.Capabilities(); !slices.Equal(got, capability.Sort(c.want)) {
			t.Errorf("%q: capabilities %v, want %v", c.toml, got, c.want)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
func TestParseSizeMB(t *testing.T) {
	for in, want := range map[string]int64{"512M": 512, "4G": 4096, "8g": 8192, "2Gi": 2048, "1gb": 1024, "1024": 1024, "1T": 1 << 20, "0.5G": 512} {
		got, err := ParseSizeMB(in)
		if err != nil || got != want {
			t.Errorf("ParseSizeMB(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "G", "-1G", "abc", "1X2"} {
		if _, err := ParseSizeMB(in); err == nil {
			t.Errorf("ParseSizeMB(%q): want an error", in)
		}
	}
}
