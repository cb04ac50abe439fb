package tracer

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/tracer/trace"
)

// sharedObject compiles testdata/preload.c into a shared object in dir.
func sharedObject(t *testing.T, dir, name string) string {
	t.Helper()
	needTool(t, "gcc")
	so := filepath.Join(dir, name)
	if out, err := exec.Command("gcc", "-shared", "-fPIC", "-o", so, filepath.Join("testdata", "preload.c")).CombinedOutput(); err != nil {
		t.Fatalf("compile %s: %v\n%s", name, err, out)
	}
	return so
}

// mmapsOf returns the mmap events that name file.
func mmapsOf(evs []trace.Event, file string) []trace.Event {
	return filterEvents(evs, func(e *trace.Event) bool { return e.Op == trace.OpMmap && e.Real == file })
}

// TestMmapExecEvents: native code that runs without an execve — a library
// loaded with LD_PRELOAD, one loaded with dlopen, a file mapping made
// executable with mprotect — is an mmap event naming the file with its
// identity, on the execute axis; anonymous memory made executable and a
// file mapped without PROT_EXEC are not events.
func TestMmapExecEvents(t *testing.T) {
	tr := loadTracer(t, Options{})
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pre := sharedObject(t, dir, "pre.so")
	opened := sharedObject(t, dir, "dl.so")
	data := filepath.Join(dir, "data.bin")
	must(t, os.WriteFile(data, make([]byte, 8192), 0o644))
	prog := helperBin(t, "mapexec")
	r := runTraced(t, tr, dir, []string{"/usr/bin/env", "LD_PRELOAD=" + pre, prog, data, opened}, nil)
	if r.code != 0 {
		t.Fatalf("mapexec exited %d", r.code)
	}
	for _, c := range []struct{ file, syscall string }{{pre, "mmap"}, {opened, "mmap"}, {data, "mprotect"}} {
		evs := mmapsOf(r.events, c.file)
		if len(evs) != 1 {
			t.Errorf("%s: %d mmap events, want 1: %+v", c.file, len(evs), evs)
			continue
		}
		ev := evs[0]
		dev, ino := inodeOf(t, c.file)
		if ev.Dev != dev || ev.Ino != ino || ev.Path != c.file || ev.Axis != trace.AxisExecute ||
			ev.Flags&unix.PROT_EXEC == 0 || ev.Syscall != c.syscall || ev.Failed() {
			t.Errorf("%s: event %+v, want dev %d ino %d, execute, PROT_EXEC, syscall %s", c.file, ev, dev, ino, c.syscall)
		}
		if !strings.HasSuffix(ev.Comm, "mapexec") {
			t.Errorf("%s: mapped by %q, want mapexec", c.file, ev.Comm)
		}
	}
	for _, ev := range r.events {
		if ev.Op == trace.OpMmap && (ev.Real == "" || ev.Flags&unix.PROT_EXEC == 0) {
			t.Errorf("mmap event without a file or without PROT_EXEC: %+v", ev)
		}
	}
	line := string(mmapsOf(r.events, opened)[0].AppendJSON(nil))
	for _, want := range []string{`"op":"mmap"`, `"real":"` + opened + `"`, `"syscall":"mmap"`, `"axis":"execute"`, `"flags":5`} {
		if !strings.Contains(line, want) {
			t.Errorf("JSON %s lacks %s", line, want)
		}
	}
}

// TestMmapEventsPerLs measures what ld.so's own mappings add to a typical
// command: one event per shared library mapped executable, nothing for
// the rest of its mmap and mprotect calls.
func TestMmapEventsPerLs(t *testing.T) {
	tr := loadTracer(t, Options{})
	r := runTraced(t, tr, "/", []string{"/bin/sh", "-c", "exec ls -l /usr/lib >/dev/null"}, nil)
	if r.code != 0 {
		t.Fatalf("ls exited %d", r.code)
	}
	ls := func(e *trace.Event) bool { return e.Comm == "ls" }
	maps := count(r.events, func(e *trace.Event) bool { return e.Op == trace.OpMmap && ls(e) })
	seen := map[string]bool{}
	for _, ev := range r.events {
		if ev.Op == trace.OpMmap && ls(&ev) {
			if seen[ev.Real] {
				t.Errorf("%s mapped executable twice", ev.Real)
			}
			seen[ev.Real] = true
			if !strings.Contains(filepath.Base(ev.Real), ".so") {
				t.Errorf("mmap event of a file that is not a library: %+v", ev)
			}
		}
	}
	t.Logf("ls -l /usr/lib: %d events, %d of them mmap (%v)", count(r.events, ls), maps, keys(seen))
	if maps == 0 || maps > 12 {
		t.Errorf("%d mmap events for one ls, want one per library (1..12)", maps)
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// execsOf returns the successful exec events whose name as given is path.
func execsOf(evs []trace.Event, path string) []trace.Event {
	return filterEvents(evs, func(e *trace.Event) bool { return e.Op == trace.OpExec && !e.Failed() && e.Path == path })
}

// TestExecScriptInterp: executing a #! script reports the script as the
// file executed (real, dev, ino) and the interpreter the kernel ran in
// its place (interp, a real path); a binary has no interp.
func TestExecScriptInterp(t *testing.T) {
	tr := loadTracer(t, Options{})
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "helper.sh")
	must(t, os.WriteFile(script, []byte("#!/bin/sh\n/bin/true\n"), 0o755))
	link := filepath.Join(dir, "via-link")
	must(t, os.Symlink(script, link))
	sh, err := filepath.EvalSymlinks("/bin/sh")
	if err != nil {
		t.Fatal(err)
	}
	truePath, err := filepath.EvalSymlinks("/bin/true")
	if err != nil {
		t.Fatal(err)
	}
	r := runTraced(t, tr, dir, []string{"/bin/sh", "-c", script + " && " + link}, nil)
	if r.code != 0 {
		t.Fatalf("script exited %d", r.code)
	}
	dev, ino := inodeOf(t, script)
	for _, name := range []string{script, link} {
		evs := execsOf(r.events, name)
		if len(evs) != 1 {
			t.Fatalf("%d exec events of %s, want 1: %+v", len(evs), name, r.events)
		}
		ev := evs[0]
		if ev.Real != script || ev.Dev != dev || ev.Ino != ino || ev.Interp != sh {
			t.Errorf("exec of %s: real %q dev %d ino %d interp %q, want real %s (%d, %d) interp %s",
				name, ev.Real, ev.Dev, ev.Ino, ev.Interp, script, dev, ino, sh)
		}
	}
	for _, ev := range execsOf(r.events, "/bin/true") {
		if ev.Real != truePath || ev.Interp != "" {
			t.Errorf("exec of a binary: real %q interp %q, want %s and no interp", ev.Real, ev.Interp, truePath)
		}
	}
}

// TestExecLdEnv: the exec event lists the dynamic loader's variables of
// the new program's environment, cut to their bound and marked when cut,
// and finds them behind a very long variable; other variables are not
// recorded.
func TestExecLdEnv(t *testing.T) {
	tr := loadTracer(t, Options{})
	long := "LD_LIBRARY_PATH=/" + strings.Repeat("a", 400)
	pad := "PAD=" + strings.Repeat("p", 100000)
	r := runTraced(t, tr, "/", []string{"/usr/bin/env", "-i", "HOME=/x", pad, "LD_PRELOAD=/tmp/evil.so",
		"LD_AUDIT=/tmp/audit.so", "NOT_LD_PRELOAD=/y", long, "/bin/true"}, nil)
	if r.code != 0 {
		t.Fatalf("env exited %d", r.code)
	}
	evs := execsOf(r.events, "/bin/true")
	if len(evs) != 1 {
		t.Fatalf("%d exec events of /bin/true, want 1", len(evs))
	}
	ev := evs[0]
	want := []string{"LD_PRELOAD=/tmp/evil.so", "LD_AUDIT=/tmp/audit.so", long[:255]}
	if strings.Join(ev.LdEnv, "|") != strings.Join(want, "|") || !ev.LdEnvTruncated {
		t.Errorf("ld_env %q truncated %v, want %q truncated", ev.LdEnv, ev.LdEnvTruncated, want)
	}
	for _, ev := range execsOf(r.events, "/usr/bin/env") {
		if len(ev.LdEnv) != 0 || ev.LdEnvTruncated {
			t.Errorf("exec of env without LD_ variables: ld_env %q truncated %v", ev.LdEnv, ev.LdEnvTruncated)
		}
	}
	var back trace.Event
	must(t, back.UnmarshalJSON(ev.AppendJSON(nil)))
	if strings.Join(back.LdEnv, "|") != strings.Join(ev.LdEnv, "|") || !back.LdEnvTruncated {
		t.Errorf("JSON round trip: %q, want %q", back.LdEnv, ev.LdEnv)
	}
}

// TestCapabilityEvents: a process without capabilities that tries to
// change root's file (owner, mode, xattrs), make a device or become root
// gets EPERM, and each attempt is an event naming the syscall, the file
// (from the descriptor for the f* calls) and the error.
func TestCapabilityEvents(t *testing.T) {
	tr := loadTracer(t, Options{})
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for d := dir; d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
		must(t, os.Chmod(d, 0o755))
	}
	must(t, os.Chmod(dir, 0o777))
	file := filepath.Join(dir, "roots")
	must(t, os.WriteFile(file, []byte("r\n"), 0o644))
	r := runTraced(t, tr, dir, []string{helperBin(t, "capops"), file, dir}, nil)
	if r.code != 0 {
		t.Fatalf("capops exited %d (10+n: n calls did not fail)", r.code)
	}
	var denied []string // "op syscall path" of each EPERM
	var setids []string
	for _, ev := range r.events {
		if !trace.CapabilityOp(ev.Op) {
			continue
		}
		if ev.Axis != trace.AxisNone || ev.Syscall == "" {
			t.Errorf("capability event %+v: want no axis and a syscall name", ev)
		}
		switch {
		case ev.Errno == "EPERM":
			denied = append(denied, string(ev.Op)+" "+ev.Syscall+" "+ev.Path)
		case ev.Op == trace.OpSetid && !ev.Failed():
			setids = append(setids, ev.Syscall)
		default:
			t.Errorf("unexpected capability event %+v", ev)
		}
	}
	// glibc may issue chown, lchown, chmod and mknod as their *at forms.
	want := []string{
		"chown chown|fchownat " + file, "chown fchown " + file, "chown lchown|fchownat " + file,
		"chown fchownat " + file, "chmod chmod|fchmodat|fchmodat2 " + file, "chmod fchmod " + file,
		"setxattr setxattr " + file, "setxattr fsetxattr " + file, "setxattr removexattr " + file,
		"mknod mknod|mknodat " + dir + "/dev", "setid setuid ",
	}
	if len(denied) != len(want) {
		t.Fatalf("EPERM events %q, want %d: %q", denied, len(want), want)
	}
	for i, w := range want {
		f := strings.SplitN(w, " ", 3)
		g := strings.SplitN(denied[i], " ", 3)
		if g[0] != f[0] || g[2] != f[2] || !strings.Contains("|"+f[1]+"|", "|"+g[1]+"|") {
			t.Errorf("EPERM event %d: %q, want %q", i, denied[i], w)
		}
	}
	if strings.Join(setids, " ") != "setgroups setgid setuid" {
		t.Errorf("successful set-ID events %q, want setgroups setgid setuid", setids)
	}
}
