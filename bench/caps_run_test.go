package bench

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/authbench/authbench/capability"
	"github.com/authbench/authbench/verdict"
)

// TestBenchCapabilityDenied: a root task that needs Docker's capabilities
// (chgrp, setfacl) passes unconstrained and under its spec with no flags;
// with --caps none both runs fail, classified capability_denied with the
// refused chown as the deciding denial, never not_permission_related.
func TestBenchCapabilityDenied(t *testing.T) {
	bin := needBench(t)
	tasksDir := t.TempDir()
	src := filepath.Join("..", "taskrun", "testdata", "acl-shared")
	if out, err := exec.Command("cp", "-r", src, filepath.Join(tasksDir, "acl-shared")).CombinedOutput(); err != nil {
		t.Fatalf("copy: %v %s", err, out)
	}
	for _, c := range []struct {
		caps []string
		want bool
	}{{nil, true}, {[]string{"--caps", "none"}, false}} {
		out := filepath.Join(t.TempDir(), "out")
		b := newBenchCmd(t, bin, tasksDir)
		b.mustRun(t, append([]string{"--sources", "unconstrained,spec", "--out", out}, c.caps...)...)
		recs := loadOut(t, out)
		if len(recs) != 2 {
			t.Fatalf("%d records: %+v", len(recs), recs)
		}
		for _, r := range recs {
			wantCaps := capability.Docker
			if !c.want {
				wantCaps = []string{}
			}
			if r.Utility != c.want || !slices.Equal(r.AgentCapabilities, wantCaps) {
				t.Errorf("%v %s: utility %v caps %v, want %v %v", c.caps, r.Source, r.Utility, r.AgentCapabilities, c.want, wantCaps)
			}
			if c.want {
				continue
			}
			if r.Primary != verdict.ClassCapabilityDenied || !strings.HasPrefix(r.DecidingDenial, "chown ") || !strings.HasSuffix(r.DecidingDenial, " /app/shared") {
				t.Errorf("%v %s: classes %v primary %q deciding %q, want capability_denied by a chown of /app/shared",
					c.caps, r.Source, r.Classes, r.Primary, r.DecidingDenial)
			}
		}
	}
}
