package explore

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/sandbox"
	"github.com/authbench/authbench/taskrun/internal/runbox"
	"github.com/authbench/authbench/tracer/trace"
)

// fakeRootfs lays out a small rootfs: merged /usr, dash as sh, some
// inspection tools, a shell script and a python script with #! lines.
func fakeRootfs(t *testing.T) *policy.Root {
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
	root, err := policy.NewRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func TestGeneratorPrograms(t *testing.T) {
	root := fakeRootfs(t)
	path := "/usr/local/bin:/usr/bin:/bin"
	for _, c := range []struct {
		command string
		want    []string
	}{
		{"ls /app; cat /app/x", []string{"/usr/bin/dash", "/usr/bin/ls"}},
		{"/opt/gen.sh --fast", []string{"/usr/bin/dash", "/opt/gen.sh", "/usr/bin/bash"}},
		{"/opt/gen.py", []string{"/usr/bin/dash", "/opt/gen.py", "/usr/bin/env", "/usr/bin/python3.11"}},
		{"python3 -c 'print(1)'", []string{"/usr/bin/dash", "/usr/bin/python3.11"}},
		{"/opt/data.txt", []string{"/usr/bin/dash"}},
		{"missing-program", []string{"/usr/bin/dash"}},
		{"tree /", []string{"/usr/bin/dash"}},
	} {
		got := GeneratorPrograms(root, []string{"/bin/sh", "-c", c.command}, path)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %v, want %v", c.command, got, c.want)
		}
	}
}

func TestGenerationPolicy(t *testing.T) {
	root := fakeRootfs(t)
	pol, exe := GenerationPolicy(root, []string{"/usr/bin/dash"}, "/usr/bin:/bin")
	// Inspection tools found (tree is not executable; the rest absent),
	// the generator; no bash, no python.
	want := []string{"/usr/bin/cat", "/usr/bin/dash", "/usr/bin/grep", "/usr/bin/ls"}
	if !reflect.DeepEqual(exe, want) {
		t.Errorf("executable %v, want %v", exe, want)
	}
	str := func(ps []policy.Pattern) (out []string) {
		for _, p := range ps {
			out = append(out, p.String())
		}
		return out
	}
	if r, w, x := str(pol.Get(policy.Read)), str(pol.Get(policy.Write)), str(pol.Get(policy.Execute)); !reflect.DeepEqual(r, []string{"/**"}) ||
		!reflect.DeepEqual(w, []string{OutFile}) || !reflect.DeepEqual(x, want) {
		t.Errorf("policy read %v write %v execute %v", r, w, x)
	}
}

func TestGenerationProfileRefusesMetadataChanges(t *testing.T) {
	p := GenerationProfile()
	var eperm []string
	for _, r := range p.Syscalls {
		for _, n := range r.Names {
			if slices.Contains(metadataSyscalls, n) && (r.Action != "SCMP_ACT_ERRNO" || r.ErrnoRet == nil || *r.ErrnoRet != 1) {
				t.Errorf("%s: action %s", n, r.Action)
			}
			if slices.Contains(metadataSyscalls, n) {
				eperm = append(eperm, n)
			}
		}
	}
	slices.Sort(eperm)
	want := slices.Sorted(slices.Values(metadataSyscalls))
	if !reflect.DeepEqual(eperm, want) {
		t.Errorf("metadata syscalls refused %v, want %v", eperm, want)
	}
	if _, err := GenerationFilter(); err != nil {
		t.Fatal(err)
	}
	// The default profile is untouched.
	if d := sandbox.DefaultProfile(); reflect.DeepEqual(d.Syscalls, p.Syscalls) {
		t.Error("the generation profile is the default one")
	}
}

// TestGenerationFilterRefusesFileChanges: the compiled generation filter
// refuses chattr's ioctls (junk in the request's high bits included, as
// the kernel ignores them), file_setattr and read-only opens with
// O_TRUNC, and still lets the harmless neighbours through.
func TestGenerationFilterRefusesFileChanges(t *testing.T) {
	f, err := GenerationFilter()
	if err != nil {
		t.Fatal(err)
	}
	const (
		allow  = 0x7fff0000
		eperm  = 0x00050000 | uint32(unix.EPERM)
		eacces = 0x00050000 | uint32(unix.EACCES)
		junk   = uint64(0xdead) << 32
	)
	tests := []struct {
		call string
		args [6]uint64
		want uint32
	}{
		{"ioctl", [6]uint64{3, sandbox.FSIocSetFlags}, eperm},
		{"ioctl", [6]uint64{3, junk | sandbox.FSIocSetFlags}, eperm},
		{"ioctl", [6]uint64{3, sandbox.FSIocSetFlags32}, eperm},
		{"ioctl", [6]uint64{3, sandbox.FSIocFSSetXattr}, eperm},
		{"ioctl", [6]uint64{3, junk | sandbox.FSIocFSSetXattr}, eperm},
		{"ioctl", [6]uint64{3, unix.FS_IOC_GETFLAGS}, allow},
		{"ioctl", [6]uint64{3, unix.TCGETS}, allow},
		{"file_setattr", [6]uint64{3, 0, 0, 24, 0}, eperm},
		{"file_getattr", [6]uint64{3, 0, 0, 24, 0}, allow},
		{"openat", [6]uint64{3, 0, unix.O_RDONLY | unix.O_TRUNC}, eacces},
		{"openat", [6]uint64{3, 0, 3 | unix.O_TRUNC}, eacces},
		{"openat", [6]uint64{3, 0, unix.O_RDONLY | unix.O_CLOEXEC}, allow},
		{"fchmodat", [6]uint64{3, 0, 0o644}, eperm},
	}
	for _, tc := range tests {
		got, err := f.Verdict(tc.call, tc.args)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%s %#x = %#x, want %#x", tc.call, tc.args[:3], got, tc.want)
		}
	}
}

// TestExploreTraceSkipsSandboxInitStartup: when the trace begins with
// sandbox-init's exec (tracking started right at it), its start-up opens
// (Landlock's O_PATH rule opens, the Go runtime's /proc reads) are not
// the generator's reads, and its exec is not a tool call.
//
// Nor is what sandbox-init's openat2 agent (another process running the
// authbench binary) does: its exec is not a tool call, its runtime's
// reads are not the generator's.
func TestExploreTraceSkipsSandboxInitStartup(t *testing.T) {
	tr := &exploreTrace{read: map[string]bool{}, gate: true, skip: []policy.Pattern{policy.MustPattern("/lib/**")}, init: 1, own: map[int]bool{}}
	for _, ev := range []trace.Event{
		{TGID: 1, Op: trace.OpExec, Path: runbox.BinaryInContainer, Axis: trace.AxisExecute},
		{TGID: 1, Op: trace.OpOpen, Path: "/proc/1/cgroup", Axis: trace.AxisRead},
		{TGID: 9, Op: trace.OpExec, Path: "/proc/self/exe", Real: runbox.BinaryInContainer, Axis: trace.AxisExecute},
		{TGID: 9, Op: trace.OpOpen, Path: "/proc/9/mountinfo", Axis: trace.AxisRead},
		{Op: trace.OpOpen, Path: "/usr/bin/cat", Axis: trace.AxisRead, Flags: unix.O_PATH | unix.O_CLOEXEC},
		{TGID: 1, Op: trace.OpExec, Path: "/bin/sh", Axis: trace.AxisExecute},
		{TGID: 9, Op: trace.OpOpen, Path: "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", Axis: trace.AxisRead},
		{Op: trace.OpOpen, Path: "/lib/libc.so.6", Axis: trace.AxisRead},
		{Op: trace.OpOpen, Path: "/app/secret", Axis: trace.AxisRead, Ret: -13},
		{Op: trace.OpOpen, Path: "/app/out", Axis: trace.AxisWrite, Flags: unix.O_WRONLY},
		{Op: trace.OpExec, Path: "/usr/bin/cat", Axis: trace.AxisExecute},
		{Op: trace.OpOpen, Path: "/app/input.txt", Axis: trace.AxisRead},
		{Op: trace.OpOpen, Path: "/etc", Axis: trace.AxisRead, Flags: unix.O_PATH},
	} {
		tr.observe(&ev)
	}
	var got []string
	for p := range tr.read {
		got = append(got, p)
	}
	if !reflect.DeepEqual(got, []string{"/app/input.txt"}) || tr.execs != 2 {
		t.Errorf("read %v, execs %d; want [/app/input.txt] and 2 (sh, cat)", got, tr.execs)
	}
}
