package taskrun

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/tracer"
)

// TestSensitiveThroughAliases: a sensitive file reached through a
// symlink, a hard link, /proc/self/root, ".." after a symlink or a renamed
// directory is a traced sensitive access (the events are as the tracer
// writes them: the name as given, the real path, the identity).
func TestSensitiveThroughAliases(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"secret", "work"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	key := filepath.Join(dir, "secret", "key")
	if err := os.WriteFile(key, []byte("k"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "work", "plain"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/secret", filepath.Join(dir, "work", "l")); err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(key, &st); err != nil {
		t.Fatal(err)
	}
	root, err := policy.NewRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	pat, err := policy.ParsePattern("/secret/**")
	if err != nil {
		t.Fatal(err)
	}
	var sens policy.Permissions
	sens[policy.Read] = []policy.Pattern{pat}
	sens[policy.Write] = []policy.Pattern{pat}
	m := newSensitiveMatcher(&policy.Spec{Sensitive: &sens}, root)

	dev, ino := uint64(st.Dev), uint64(st.Ino)
	read := func(path, given, real string, ino uint64) *tracer.Event {
		return &tracer.Event{Op: tracer.OpOpen, Axis: tracer.AxisRead, Path: path, Given: given, Real: real, Dev: dev, Ino: ino}
	}
	for _, c := range []struct {
		kind string
		ev   *tracer.Event
		want bool
	}{
		{"symlink", read("/work/l/key", "", "/secret/key", ino), true},
		{"hard link", read("/work/hl", "", "/work/hl", ino), true},
		{"/proc/self/root", read("/proc/self/root/secret/key", "", "/secret/key", ino), true},
		{".. after a symlink", read("/work/secret/key", "/work/l/../secret/key", "/secret/key", ino), true},
		{"renamed directory", read("/tmp/moved/key", "", "/tmp/moved/key", ino), true},
		{"write through a symlink, no descriptor", &tracer.Event{Op: tracer.OpTruncate, Axis: tracer.AxisWrite, Path: "/work/l/key"}, true},
		{"another file", read("/work/plain", "", "/work/plain", ino+1), false},
		{"refused", &tracer.Event{Op: tracer.OpOpen, Axis: tracer.AxisRead, Path: "/work/l/key", Ret: -13}, false},
	} {
		before := len(m.found)
		m.observe(c.ev)
		got := len(m.found) > before
		if got != c.want {
			t.Errorf("%s: counted %v, want %v (found %+v)", c.kind, got, c.want, m.found)
			continue
		}
		if got {
			if sa := m.found[len(m.found)-1]; sa.Pattern != "/secret/**" || (sa.Path != c.ev.Path && sa.Via != c.ev.Path) {
				t.Errorf("%s: %+v", c.kind, sa)
			}
		}
	}
}

// TestSensitiveGlobIndexed: the files of a glob sensitive pattern are
// known by identity before the run, so a hard link made to one of them
// is exposure.
func TestSensitiveGlobIndexed(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "keys"), 0o755); err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(dir, "keys", "id_rsa")
	if err := os.WriteFile(key, []byte("k"), 0o600); err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(key, &st); err != nil {
		t.Fatal(err)
	}
	root, err := policy.NewRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	pat, err := policy.ParsePattern("/keys/id_*")
	if err != nil {
		t.Fatal(err)
	}
	var sens policy.Permissions
	sens[policy.Read] = []policy.Pattern{pat}
	m := newSensitiveMatcher(&policy.Spec{Sensitive: &sens}, root)
	m.observe(&tracer.Event{Op: tracer.OpOpen, Axis: tracer.AxisRead, Path: "/tmp/hl", Real: "/tmp/hl", Dev: uint64(st.Dev), Ino: uint64(st.Ino)})
	if len(m.found) != 1 || m.found[0].Pattern != "/keys/id_*" {
		t.Fatalf("hard link to a file of a glob pattern: found %+v, want one access of /keys/id_*", m.found)
	}
}
