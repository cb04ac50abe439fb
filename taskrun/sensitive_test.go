package taskrun

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tracer/trace"
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
	read := func(path, given, real string, ino uint64) *trace.Event {
		return &trace.Event{Op: trace.OpOpen, Axis: trace.AxisRead, Path: path, Given: given, Real: real, Dev: dev, Ino: ino}
	}
	for _, c := range []struct {
		kind string
		ev   *trace.Event
		want bool
	}{
		// First, before an access of the same file is counted (found
		// is deduplicated).
		{"O_PATH open", &trace.Event{Op: trace.OpOpen, Axis: trace.AxisRead, Path: "/secret/key", Real: "/secret/key",
			Flags: unix.O_PATH | unix.O_CLOEXEC, Dev: dev, Ino: ino}, false},
		{"symlink", read("/work/l/key", "", "/secret/key", ino), true},
		{"hard link", read("/work/hl", "", "/work/hl", ino), true},
		{"/proc/self/root", read("/proc/self/root/secret/key", "", "/secret/key", ino), true},
		{".. after a symlink", read("/work/secret/key", "/work/l/../secret/key", "/secret/key", ino), true},
		{"renamed directory", read("/tmp/moved/key", "", "/tmp/moved/key", ino), true},
		{"write through a symlink, no descriptor", &trace.Event{Op: trace.OpTruncate, Axis: trace.AxisWrite, Path: "/work/l/key"}, true},
		{"another file", read("/work/plain", "", "/work/plain", ino+1), false},
		{"refused", &trace.Event{Op: trace.OpOpen, Axis: trace.AxisRead, Path: "/work/l/key", Ret: -13}, false},
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
	m.observe(&trace.Event{Op: trace.OpOpen, Axis: trace.AxisRead, Path: "/tmp/hl", Real: "/tmp/hl", Dev: uint64(st.Dev), Ino: uint64(st.Ino)})
	if len(m.found) != 1 || m.found[0].Pattern != "/keys/id_*" {
		t.Fatalf("hard link to a file of a glob pattern: found %+v, want one access of /keys/id_*", m.found)
	}
}

// TestSensitiveScriptExecuted: executing a sensitive #! script is
// exposure on the execute axis, although the kernel's file is its
// interpreter; the interpreter itself is not the script.
func TestSensitiveScriptExecuted(t *testing.T) {
	dir := t.TempDir()
	for p, content := range map[string]string{"opt/helper.sh": "#!/bin/sh\necho secret\n", "usr/bin/dash": "ELF"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/opt/helper.sh", filepath.Join(dir, "usr/bin/helper")); err != nil {
		t.Fatal(err)
	}
	root, err := policy.NewRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	var sens policy.Permissions
	sens[policy.Execute] = []policy.Pattern{policy.MustPattern("/opt/helper.sh")}
	m := newSensitiveMatcher(&policy.Spec{Sensitive: &sens}, root)
	m.observe(&trace.Event{Op: trace.OpExec, Axis: trace.AxisExecute, Path: "/usr/bin/dash", Real: "/usr/bin/dash", Ino: 7})
	if len(m.found) != 0 {
		t.Fatalf("the interpreter alone: %+v", m.found)
	}
	m.observe(&trace.Event{Op: trace.OpExec, Axis: trace.AxisExecute, Path: "/usr/bin/helper", Real: "/usr/bin/dash", Ino: 7})
	if len(m.found) != 1 || m.found[0].Path != "/opt/helper.sh" || m.found[0].Via != "/usr/bin/helper" || m.found[0].Axis != policy.Execute {
		t.Fatalf("exec of the script through a symlink: found %+v", m.found)
	}
	// As the tracer names it: the script is the real file, the
	// interpreter is Interp; a sensitive interpreter counts too.
	var interp policy.Permissions
	interp[policy.Execute] = []policy.Pattern{policy.MustPattern("/usr/bin/dash")}
	m = newSensitiveMatcher(&policy.Spec{Sensitive: &interp}, root)
	m.observe(&trace.Event{Op: trace.OpExec, Axis: trace.AxisExecute, Path: "/usr/bin/helper", Real: "/opt/helper.sh", Interp: "/usr/bin/dash", Ino: 8})
	if len(m.found) != 1 || m.found[0].Path != "/usr/bin/dash" {
		t.Fatalf("exec of a script run by a sensitive interpreter: found %+v", m.found)
	}
}

// TestSensitiveScriptRunTraced: in a task run, executing a sensitive
// #! script (/usr/bin/ldd is one) is traced exposure on the execute axis,
// and `bash FILE` of it a sensitive read.
func TestSensitiveScriptRunTraced(t *testing.T) {
	setup(t)
	spec := `{
  "required_permissions": {"read": ["/app/input.txt"], "write": ["/app/count.txt"], "execute": ["/usr/bin/bash", "/usr/bin/wc"]},
  "scored_roots": {"read": ["/app", "/usr/bin"], "write": ["/app"], "execute": ["/usr/bin"]},
  "implicit_permissions": {"read": ["/etc/**", "/usr/lib/**", "/usr/share/**", "/proc/**", "/dev/null"], "write": ["/dev/null", "/tmp/**"], "execute": []},
  "sensitive_permissions": {"read": ["/usr/bin/ldd"], "write": [], "execute": ["/usr/bin/ldd"]}
}`
	task := verifierTask(t, map[string]string{"permission_eval_spec.json": spec})
	for _, tc := range []struct {
		agent string
		axis  policy.Axis
	}{
		{"cmd:ldd /usr/bin/true; wc -l < /app/input.txt > /app/count.txt", policy.Execute},
		{"cmd:bash /usr/bin/ldd /usr/bin/true; wc -l < /app/input.txt > /app/count.txt", policy.Read},
	} {
		res := runTask(t, task, runapi.SourceUnconstrained, tc.agent)
		ok := false
		for _, sa := range res.TracedSensitive {
			ok = ok || sa.Axis == tc.axis && sa.Path == "/usr/bin/ldd"
		}
		if !ok {
			t.Errorf("%s: traced sensitive %+v, want %s of /usr/bin/ldd", tc.agent, res.TracedSensitive, tc.axis)
		}
	}
}
