package runapi

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/authbench/authbench/"

// kernelFacing are the packages that touch the kernel (eBPF, namespaces,
// Landlock, runc) or hold the daemon's Manager and task environments.
var kernelFacing = []string{"sandbox", "bpf", "tracer", "taskrun", "daemon", "env", "internal/lifecycle", "internal/spawn"}

// TestLeafPackagesStayLeaves: the run API, the trial row, the trace data
// and the packages that only read runs link none of the kernel-facing
// packages, and the API's clients do not link the daemon. It runs
// `go list -deps`, so that an import that breaks the rule fails here.
func TestLeafPackagesStayLeaves(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("the go tool is needed to list imports: %v", err)
	}
	for _, c := range []struct {
		pkg       string
		forbidden []string
	}{
		{"runapi", kernelFacing},
		{"trial", kernelFacing},
		{"tracer/trace", kernelFacing},
		{"audit", kernelFacing},
		{"policy", kernelFacing},
		{"report", kernelFacing},
		{"bench", []string{"daemon"}},
		{"oracle", []string{"daemon"}},
	} {
		deps := listDeps(t, c.pkg)
		for _, f := range c.forbidden {
			if slices.Contains(deps, f) {
				t.Errorf("%s depends on %s (its dependencies: %s)", c.pkg, f, strings.Join(deps, " "))
			}
		}
	}
}

// TestListDepsSeesKernelPackages: the check above can fail — the daemon's
// dependencies include the kernel-facing packages.
func TestListDepsSeesKernelPackages(t *testing.T) {
	deps := listDeps(t, "daemon")
	for _, p := range []string{"sandbox", "bpf", "tracer", "taskrun", "env"} {
		if !slices.Contains(deps, p) {
			t.Errorf("go list -deps ./daemon lacks %s: %v", p, deps)
		}
	}
}

// listDeps returns the module's packages pkg depends on (itself
// included), relative to the module.
func listDeps(t *testing.T, pkg string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", module+pkg)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	var deps []string
	for _, line := range strings.Fields(string(out)) {
		if rel, ok := strings.CutPrefix(line, module); ok {
			deps = append(deps, rel)
		}
	}
	return deps
}
