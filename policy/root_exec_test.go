package policy

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// execRoot lays out a small rootfs: merged /usr, dash as sh, some
// inspection tools, a shell script and a python script with #! lines.
func execRoot(t *testing.T) *Root {
	t.Helper()
	dir := t.TempDir()
	file := func(p, content string, mode os.FileMode) {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	link := func(p, target string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(dir, p)); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"usr/bin/dash", "usr/bin/bash", "usr/bin/ls", "usr/bin/cat", "usr/bin/python3.11", "usr/bin/env", "usr/bin/grep"} {
		file(p, "\x7fELF", 0o755)
	}
	file("usr/bin/tree", "not executable", 0o644)
	link("bin", "usr/bin")
	link("usr/bin/sh", "dash")
	link("usr/bin/python3", "python3.11")
	file("opt/gen.sh", "#!/bin/bash\nls /\n", 0o755)
	file("opt/gen.py", "#!/usr/bin/env python3\nprint('{}')\n", 0o755)
	file("opt/data.txt", "x", 0o644)
	file("opt/nointerp.sh", "#!/usr/bin/nosuch\n", 0o755)
	link("opt/run", "gen.sh")
	root, err := NewRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestScriptInterpreters: the interpreter of a "#!" script named by a
// symlinked path, env's program found in path; nothing for a program that
// is no script, a missing file, or a "#!" naming a missing interpreter.
func TestScriptInterpreters(t *testing.T) {
	root := execRoot(t)
	path := "/usr/local/bin:/usr/bin:/bin"
	for _, c := range []struct {
		prog string
		want []string
	}{
		{"/opt/gen.sh", []string{"/usr/bin/bash"}},
		{"/opt/gen.py", []string{"/usr/bin/env", "/usr/bin/python3.11"}},
		{"/opt/run", []string{"/usr/bin/bash"}}, // a symlink to gen.sh
		{"/opt/nointerp.sh", nil},
		{"/usr/bin/ls", nil},
		{"/opt/data.txt", nil},
		{"/opt/missing", nil},
	} {
		if got := root.ScriptInterpreters(c.prog, path); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.prog, got, c.want)
		}
	}
}

// TestLookPath: a bare name found in the first absolute entry of path
// that has it as an executable file; a path taken as it is; relative
// names and entries, missing and non-executable files give "".
func TestLookPath(t *testing.T) {
	root := execRoot(t)
	for _, c := range []struct{ name, path, want string }{
		{"python3", "/usr/local/bin:/bin", "/usr/bin/python3.11"},
		{"sh", "relative:/usr/bin", "/usr/bin/dash"},
		{"tree", DefaultPath, ""},
		{"/opt/gen.sh", "", "/opt/gen.sh"},
		{"opt/gen.sh", "/", ""},
		{"/opt/data.txt", "", ""},
		{"nosuch", DefaultPath, ""},
	} {
		if got := root.LookPath(c.name, c.path); got != c.want {
			t.Errorf("LookPath(%q, %q) = %q, want %q", c.name, c.path, got, c.want)
		}
	}
}
