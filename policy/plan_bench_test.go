package policy

import "testing"

// BenchmarkCompilePlanDefault compiles a small policy with the default
// baseline against the host root, as every `authbench exec` does.
func BenchmarkCompilePlanDefault(b *testing.B) {
	root, err := NewRoot("/")
	if err != nil {
		b.Fatal(err)
	}
	pol := mustPolicy(b, `{"read":["/etc/hostname"],"write":["/tmp/**"],"execute":["/bin/true"]}`)
	for b.Loop() {
		if _, err := CompilePlan(pol, DefaultBaseline(), root); err != nil {
			b.Fatal(err)
		}
	}
}
