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
		{"permreq", kernelFacing},
		{"report", kernelFacing},
		{"bench", []string{"daemon"}},
		{"viewer", []string{"daemon"}},
		// The daemon's core embeds in the thin front for exec: the task
		// environments are daemon/taskwork's.
		{"daemon", []string{"bpf", "tracer", "taskrun", "env", "generate", "agent", "tasks", "daemon/taskwork"}},
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

// heavyLibraries are third-party libraries whose package initialisation
// and size the run API's users should not pay for: the model client,
// image builds, eBPF, SQLite.
var heavyLibraries = []string{"github.com/openai/openai-go", "github.com/moby/buildkit", "github.com/cilium/ebpf", "modernc.org/sqlite"}

// TestLeafPackagesLinkNoHeavyLibrary: the run API, the lifecycle helper
// and the packages that only read runs link none of heavyLibraries (the
// model's plain config is agent/modelconfig, not the client).
func TestLeafPackagesLinkNoHeavyLibrary(t *testing.T) {
	for _, pkg := range []string{"runapi", "internal/lifecycle", "trial", "report", "agent/modelconfig", "daemon", "daemon/work"} {
		for _, dep := range listAllDeps(t, pkg) {
			for _, h := range heavyLibraries {
				if strings.HasPrefix(dep, h) {
					t.Errorf("%s links %s", pkg, dep)
				}
			}
		}
	}
	// The check can fail: the model client links openai-go.
	if !slices.ContainsFunc(listAllDeps(t, "agent"), func(d string) bool { return strings.HasPrefix(d, heavyLibraries[0]) }) {
		t.Errorf("go list -deps ./agent lacks %s", heavyLibraries[0])
	}
}

// TestListDepsSeesKernelPackages: the check above can fail — the task
// work's dependencies include the kernel-facing packages.
func TestListDepsSeesKernelPackages(t *testing.T) {
	deps := listDeps(t, "daemon/taskwork")
	for _, p := range []string{"sandbox", "bpf", "tracer", "taskrun", "env"} {
		if !slices.Contains(deps, p) {
			t.Errorf("go list -deps ./daemon lacks %s: %v", p, deps)
		}
	}
}

// listAllDeps returns every package pkg (of the module) depends on,
// itself included.
func listAllDeps(t *testing.T, pkg string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", module+pkg)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}

// listDeps returns the module's packages pkg depends on (itself
// included), relative to the module.
func listDeps(t *testing.T, pkg string) []string {
	t.Helper()
	var deps []string
	for _, line := range listAllDeps(t, pkg) {
		if rel, ok := strings.CutPrefix(line, module); ok {
			deps = append(deps, rel)
		}
	}
	return deps
}
