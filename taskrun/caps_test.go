package taskrun

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/capability"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
)

// TestRootTaskHasDockerCapabilities: a root task that needs Docker's
// default capabilities (chgrp to a group root is not in, setfacl on
// another user's directory) passes unconstrained and under its own spec
// with no flags, as under Harbor, each run recording the set; with
// Capabilities none the same oracle fails under the spec.
func TestRootTaskHasDockerCapabilities(t *testing.T) {
	setup(t)
	task, err := tasks.Load(filepath.Join("testdata", "acl-shared"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		source string
		caps   []string
		want   bool
	}{
		{"unconstrained", runapi.SourceUnconstrained, nil, true},
		{"spec", runapi.SourceSpec, nil, true},
		{"spec, caps none", runapi.SourceSpec, []string{}, false},
		{"unconstrained, caps none", runapi.SourceUnconstrained, []string{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			res, err := runWith(t, Options{Task: task, Source: c.source, Agent: runapi.AgentOracle, Capabilities: c.caps, Dir: dir})
			if err != nil || res.VerifierError != "" {
				t.Fatalf("run: %v %s", err, res.VerifierError)
			}
			wantCaps := c.caps
			if wantCaps == nil {
				wantCaps = capability.Docker
			}
			if !slices.Equal(res.AgentCapabilities, wantCaps) {
				t.Errorf("agent_capabilities %v, want %v", res.AgentCapabilities, wantCaps)
			}
			if res.Utility != c.want {
				t.Errorf("utility %v, want %v (exit %d, denials %+v)", res.Utility, c.want, res.ExitCode, res.Denials)
			}
			stderr, err := os.ReadFile(filepath.Join(dir, runapi.FileAgentStderr))
			if err != nil {
				t.Fatal(err)
			}
			if refused := strings.Contains(string(stderr), "chgrp: changing group of '/app/shared': Operation not permitted"); refused == c.want {
				t.Errorf("agent stderr %q: chgrp refused %v, want %v", stderr, refused, !c.want)
			}
			// The refusal is traced: a capability denial naming the call.
			i := slices.IndexFunc(res.Denials, audit.IsCapabilityDenial)
			switch {
			case c.want && i >= 0:
				t.Errorf("capability denial %+v in a run that held Docker's set", res.Denials[i])
			case !c.want && (i < 0 || res.Denials[i].Op != "chown" || res.Denials[i].Path != "/app/shared" || !strings.Contains(res.Denials[i].Syscall, "chown")):
				t.Errorf("denials %+v, want a capability denial of a chown of /app/shared naming its system call", res.Denials)
			}
		})
	}
}

// TestRootTaskMakesSetIDFiles: a root agent under its own spec makes a
// set-group-ID directory (chmod g+s, install -m 2775 -d) and a
// set-user-ID root copy of id(1), as under Docker (the container profile
// has no set-ID refusal); the copy, run by a non-root uid, does not
// raise its effective uid, and the container's / is mounted nosuid.
func TestRootTaskMakesSetIDFiles(t *testing.T) {
	setup(t)
	task, err := tasks.Load(filepath.Join("testdata", "setid-shared"))
	if err != nil {
		t.Fatal(err)
	}
	for _, source := range []string{runapi.SourceSpec, runapi.SourceUnconstrained} {
		t.Run(source, func(t *testing.T) {
			dir := t.TempDir()
			res, err := runWith(t, Options{Task: task, Source: source, Agent: runapi.AgentOracle, Dir: dir})
			if err != nil || res.VerifierError != "" {
				t.Fatalf("run: %v %s", err, res.VerifierError)
			}
			stderr, _ := os.ReadFile(filepath.Join(dir, runapi.FileAgentStderr))
			if !res.Utility || res.ExitCode != 0 {
				t.Errorf("utility %v, exit %d, denials %+v, stderr %q", res.Utility, res.ExitCode, res.Denials, stderr)
			}
			if i := slices.IndexFunc(res.Denials, audit.IsCapabilityDenial); i >= 0 {
				t.Errorf("capability denial %+v", res.Denials[i])
			}
			stdout, err := os.ReadFile(filepath.Join(dir, runapi.FileAgentStdout))
			if err != nil {
				t.Fatal(err)
			}
			var euid, opts string
			for _, line := range strings.Split(string(stdout), "\n") {
				if v, ok := strings.CutPrefix(line, "euid-as-alice "); ok {
					euid = v
				}
				if v, ok := strings.CutPrefix(line, "root-mount-options "); ok {
					opts = v // the last / is the container's root
				}
			}
			if euid != "2001" {
				t.Errorf("set-user-ID root id run by uid 2001 reports euid %q, want 2001 (stdout %q, stderr %q)", euid, stdout, stderr)
			}
			if !slices.Contains(strings.Split(opts, ","), "nosuid") {
				t.Errorf("container / mounted %q, want nosuid (stdout %q)", opts, stdout)
			}
		})
	}
}
