package policy

import (
	"os"
	"testing"
)

// BenchmarkScoreUsrBin scores one task whose execute scored root is the
// host's real /usr/bin (hundreds of files and symlinks).
func BenchmarkScoreUsrBin(b *testing.B) {
	entries, err := os.ReadDir("/usr/bin")
	if err != nil || len(entries) < 100 {
		b.Skipf("needs a /usr/bin with hundreds of files: %v", err)
	}
	spec, err := ParseSpec([]byte(`{
 "required_permissions": {"read": ["/etc/hostname"], "write": ["/tmp/out/**"], "execute": ["/usr/bin/python3", "/usr/bin/sh", "/usr/bin/g*"]},
 "scored_roots": {"read": ["/etc/hostname"], "write": ["/tmp/out"], "execute": ["/usr/bin"]},
 "implicit_permissions": {"read": [], "write": [], "execute": ["/usr/bin/dash"]}
}`), "bench-spec.json")
	if err != nil {
		b.Fatal(err)
	}
	pol, err := ParsePolicy([]byte(`{"read": ["/etc/**"], "write": ["/tmp/out/**"], "execute": ["/usr/bin/py*", "/usr/bin/[a-f]*", "/usr/bin/sh"]}`), "bench-policy.json")
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		root, err := NewRoot("/")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ScorePolicy(pol, spec, root); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(entries)), "usrbin-entries")
}
