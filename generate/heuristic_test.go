package generate

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/tasks"
)

// TestHeuristic: named files are read, named outputs and what a sentence
// asks to change written, a named directory read whole; the programs of a named script, its #! line and a
// named Makefile's recipes are executable by their real paths.
func TestHeuristic(t *testing.T) {
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
	for _, p := range []string{"usr/bin/bash", "usr/bin/dash", "usr/bin/gzip", "usr/bin/tar", "usr/bin/make", "usr/bin/cc", "usr/bin/mawk", "usr/bin/sort"} {
		file(p, "\x7fELF", 0o755)
	}
	if err := os.Symlink("dash", filepath.Join(dir, "usr/bin/sh")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("mawk", filepath.Join(dir, "usr/bin/awk")); err != nil {
		t.Fatal(err)
	}
	file("opt/backup/backup.sh", "#!/bin/bash\n# nightly\ntar czf /var/backups/app/x.tgz /srv/app/data && gzip -t /var/backups/app/x.tgz\n", 0o755)
	file("srv/app/data/a.txt", "a", 0o644)
	file("src/tool/Makefile", "all:\n\t$(CC) -o tool main.c\n", 0o644)
	root, err := policy.NewRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	instruction := "Finish the backup script in `/opt/backup/backup.sh` so it archives `/srv/app/data`. " +
		"Also build the tool in /src/tool (see /src/tool/Makefile). Put a summary in /srv/app/report.txt."
	pol := Heuristic(root, instruction, "/srv/app", "/usr/bin")
	str := func(a policy.Axis) (out []string) {
		for _, p := range pol.Get(a) {
			out = append(out, p.String())
		}
		return out
	}
	want := map[policy.Axis][]string{
		policy.Read: {"/opt/backup/backup.sh", "/src/tool/**", "/src/tool/Makefile", "/srv/app/**", "/srv/app/data/**"},
		// Named in sentences asking for a change (finish, build, put); the
		// script's own paths (depth 1) are only read.
		policy.Write:   {"/opt/backup/backup.sh", "/src/tool/**", "/src/tool/Makefile", "/srv/app/data/**", "/srv/app/report.txt"},
		policy.Execute: {"/opt/backup/backup.sh", "/usr/bin/bash", "/usr/bin/cc", "/usr/bin/dash", "/usr/bin/gzip", "/usr/bin/make", "/usr/bin/mawk", "/usr/bin/sort", "/usr/bin/tar"},
	}
	for _, a := range policy.Axes {
		if got := str(a); !reflect.DeepEqual(got, want[a]) {
			t.Errorf("%s: %v, want %v", a, got, want[a])
		}
	}
}

// TestHeuristicNetwork: with the network axis, the host:port of every URL
// in the instruction and in the files it reads is granted (a scheme's
// port when the URL names none); without it, no network list.
func TestHeuristicNetwork(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "app"), 0o755); err != nil {
		t.Fatal(err)
	}
	conf := "[global]\nindex-url = http://PyPI-Mirror:8080/simple/\nextra = https://user:pw@files.example.org/x\n" +
		"bad = http://127.1:80/ and http://host:99999/\n"
	if err := os.WriteFile(filepath.Join(dir, "app/pip.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := policy.NewRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	instruction := "Install the packages listed in /app/pip.conf's mirror, and report to https://[::1]:9443/status."
	pol := HeuristicFor(root, instruction, "/app", "/usr/bin", true)
	want := []string{"[::1]:9443", "files.example.org:443", "pypi-mirror:8080"}
	if got := policy.HostStrings(pol.Network); !reflect.DeepEqual(got, want) {
		t.Errorf("network %v, want %v", got, want)
	}
	if pol := Heuristic(root, instruction, "/app", "/usr/bin"); pol.Network != nil {
		t.Errorf("network without the axis: %v", pol.Network)
	}
	if pol := HeuristicFor(root, "Sort /app/pip.conf.", "/app", "/usr/bin", true); pol.Network == nil || len(pol.Network) != 2 {
		t.Errorf("hosts of a read file: %v", policy.HostStrings(pol.Network))
	}
}

// TestInputForNetwork: the network rules are given exactly when the
// task's spec declares the axis.
func TestInputForNetwork(t *testing.T) {
	spec, err := policy.ParseSpec([]byte(`{"required_permissions": {"read": [], "write": [], "execute": [], "network": ["a.local:80"]},
 "scored_roots": {"read": [], "write": [], "execute": []}, "implicit_permissions": {"read": [], "write": [], "execute": []}}`), "s")
	if err != nil {
		t.Fatal(err)
	}
	withNet := &tasks.Task{Instruction: "do it", Spec: spec}
	if in := InputFor(withNet); !strings.Contains(in, NetworkRules) || !strings.HasSuffix(in, "## Task\n\ndo it\n") {
		t.Errorf("input without the network rules:\n%s", in)
	}
	plain := &tasks.Task{Instruction: "do it"}
	if in := InputFor(plain); in != Input("do it") {
		t.Errorf("input for a task without the axis:\n%s", in)
	}
}
