package oracle

import "testing"

func TestGeneratedName(t *testing.T) {
	for _, c := range []struct {
		name, glob string
		ok         bool
	}{
		{"tmp.Xy3kQ9", "tmp.*", true},
		{"tmp.abcdef", "tmp.*", true},
		{"tmpk2j3_x9a", "tmp*", true},
		{"tmpk2j3_x9a.json", "tmp*.json", true},
		{"ccAbCdEf.s", "*.s", true},
		{"out.12345", "out.*", true},
		{"build-1700000000.log", "build-*.log", true},
		{"3f2a9c0b1d4e.o", "*.o", true},
		{"obj_7f3a9c2e1b4d", "obj_*", true},
		{"part-k2j3x9", "part-*", true},
		{"input.txt", "", false},
		{"count.txt", "", false},
		{"Makefile", "", false},
		{"main.o", "", false},
		{"libfoo.so.1", "", false},
		{"python3.11", "", false},
		{"XMLHttpRequest.js", "", false},
		{"sha256sum", "", false},
		{"tmpfiles", "", false},
		{"tmp_output", "", false},
		{"x86_64", "", false},
		{"v2", "", false},
	} {
		glob, ok := GeneratedName(c.name)
		if ok != c.ok || glob != c.glob {
			t.Errorf("GeneratedName(%q) = %q, %v; want %q, %v", c.name, glob, ok, c.glob, c.ok)
		}
	}
}
