package generate

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/authbench/authbench/policy"
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
