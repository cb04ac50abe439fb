package taskrun

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/sandbox"
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
		{"unconstrained", SourceUnconstrained, nil, true},
		{"spec", SourceSpec, nil, true},
		{"spec, caps none", SourceSpec, []string{}, false},
		{"unconstrained, caps none", SourceUnconstrained, []string{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			res, err := runWith(t, Options{Task: task, Source: c.source, Agent: AgentOracle, Capabilities: c.caps, Dir: dir})
			if err != nil || res.VerifierError != "" {
				t.Fatalf("run: %v %s", err, res.VerifierError)
			}
			wantCaps := c.caps
			if wantCaps == nil {
				wantCaps = sandbox.DockerCapabilities
			}
			if !slices.Equal(res.AgentCapabilities, wantCaps) {
				t.Errorf("agent_capabilities %v, want %v", res.AgentCapabilities, wantCaps)
			}
			if res.Utility != c.want {
				t.Errorf("utility %v, want %v (exit %d, denials %+v)", res.Utility, c.want, res.ExitCode, res.Denials)
			}
			stderr, err := os.ReadFile(filepath.Join(dir, AgentStderrFile))
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
