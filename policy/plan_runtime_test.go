package policy

import (
	"testing"
)

// TestRuntimeMountRules: a pattern below a mount the container sets up
// (here /sys and /dev), which the rootfs does not hold, becomes a
// run-time rule on the path as named (a hierarchy for dir/**) in both
// semantics; what the rootfs holds there, globs, and paths outside the
// mounts compile as before.
func TestRuntimeMountRules(t *testing.T) {
	for _, sem := range []Semantics{SemanticsPrecise, SemanticsPublished} {
		pol := mustPolicy(t, `{"read":["/sys/devices/system/cpu/online","/sys/fs/cgroup/**","/sys/class/*/x","/dev/tty","/e/missing"],"write":[],"execute":[]}`)
		pl, err := CompilePlanWith(pol, NoBaseline(), planFixture(t), PlanOptions{Semantics: sem, RuntimeMounts: []string{"/sys", "/dev"}})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]struct {
			dir     bool
			runtime bool
		}{
			"/sys/devices/system/cpu/online": {false, true},
			"/sys/fs/cgroup":                 {true, true},
			"/dev/tty":                       {false, false}, // in the rootfs: compiled against it
		}
		for p, w := range want {
			r := pl.Rule(p)
			if r == nil {
				t.Fatalf("%s: no rule on %s: %+v", sem, p, pl.Rules)
			}
			if r.Dir != w.dir || r.Runtime != w.runtime || !r.Access.Has(AccessReadFile) {
				t.Fatalf("%s: rule %+v, want dir %v runtime %v with read_file", sem, r, w.dir, w.runtime)
			}
		}
		for _, r := range pl.Rules {
			if r.Runtime && r.From[0].Origin == OriginPolicy && want[r.Path] != (struct{ dir, runtime bool }{r.Dir, true}) {
				t.Fatalf("%s: unexpected run-time rule %+v", sem, r)
			}
		}
		if !pl.Permits(Operation{Op: "open", Path: "/sys/devices/system/cpu/online"}, func(p string) string { return p }) {
			t.Fatalf("%s: the plan does not permit reading the run-time path", sem)
		}
	}
}
