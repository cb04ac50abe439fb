package audit

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/tracer/trace"
)

func same(p string) string { return p }

func TestDenialsAreRefusalsThePlanForbids(t *testing.T) {
	plan := &policy.Plan{Rules: []policy.Rule{
		{Path: "/data", Dir: true, Access: policy.AccessReadFile | policy.AccessReadDir},
		{Path: "/usr/bin/cat", Access: policy.AccessExecute | policy.AccessReadFile},
	}}
	a := New(plan, same)
	events := []trace.Event{
		{Op: trace.OpOpen, Path: "/data/a", Axis: "read"},                                               // allowed, succeeded
		{Op: trace.OpOpen, Path: "/data/b", Axis: "read", Ret: -int64(syscall.EACCES), Errno: "EACCES"}, // allowed by the plan: file modes
		{Op: trace.OpOpen, Path: "/etc/shadow", Axis: "read", Ret: -int64(syscall.EACCES), Errno: "EACCES"},
		{Op: trace.OpOpen, Path: "/etc/shadow", Axis: "read", Ret: -int64(syscall.EACCES), Errno: "EACCES"},
		{Op: trace.OpOpen, Path: "/missing", Axis: "read", Ret: -int64(syscall.ENOENT), Errno: "ENOENT"},
		{Op: trace.OpExec, Path: "/usr/bin/curl", Axis: "execute", Ret: -int64(syscall.EACCES), Errno: "EACCES"},
	}
	for i := range events {
		if derived := a.Observe(&events[i]); len(derived) != 0 {
			t.Fatalf("unexpected derived events %v", derived)
		}
	}
	got := a.Denials()
	want := []Denial{
		{Op: "open", Axis: "read", Path: "/etc/shadow", Errno: "EACCES", Count: 2},
		{Op: "exec", Axis: "execute", Path: "/usr/bin/curl", Errno: "EACCES", Count: 1},
	}
	if len(got) != len(want) {
		t.Fatalf("denials %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("denial %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestUnconstrainedRunHasNoDenials(t *testing.T) {
	a := New(nil, same)
	a.Observe(&trace.Event{Op: trace.OpOpen, Path: "/etc/shadow", Ret: -int64(syscall.EACCES), Errno: "EACCES"})
	if len(a.Denials()) != 0 {
		t.Fatalf("denials without a plan: %v", a.Denials())
	}
}

func TestProgramRunThroughTheLoaderIsAnExecute(t *testing.T) {
	plan := &policy.Plan{Rules: []policy.Rule{
		{Path: "/lib64/ld-linux-x86-64.so.2", Access: policy.AccessExecute | policy.AccessReadFile},
		{Path: "/opt/tool", Access: policy.AccessReadFile},
	}}
	a := New(plan, same)
	evs := []trace.Event{
		{Op: trace.OpExec, PID: 7, TGID: 7, Path: "/lib64/ld-linux-x86-64.so.2", Axis: "execute"},
		{Op: trace.OpOpen, PID: 7, TGID: 7, Path: "/opt/tool", Axis: "read"},
	}
	var derived []trace.Event
	for i := range evs {
		derived = append(derived, a.Observe(&evs[i])...)
	}
	if len(derived) != 1 || derived[0].Op != trace.OpExec || derived[0].Path != "/opt/tool" {
		t.Fatalf("derived %+v", derived)
	}
	ds := a.Denials()
	if len(ds) != 1 || ds[0].Path != "/opt/tool" || ds[0].Errno != OutsidePlan {
		t.Fatalf("denials %+v", ds)
	}
	if len(a.LoaderExecs()) != 1 {
		t.Fatalf("loader execs %+v", a.LoaderExecs())
	}
}

// TestDenialThroughLinkCreatedDuringRun: the audit judges a refused
// access against the file system as it is when the event arrives, so a
// refusal through a symlink the agent created during the run, after the
// same name had been resolved, is a denial; so is one through ".." after
// a symlink, whose clean path lies inside an allowed directory.
func TestDenialThroughLinkCreatedDuringRun(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"work", "secret"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "secret", "key"), []byte("k"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/secret", filepath.Join(dir, "work", "s")); err != nil {
		t.Fatal(err)
	}
	root, err := policy.NewRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	plan := &policy.Plan{Rules: []policy.Rule{
		{Path: "/work", Dir: true, Access: policy.AccessReadFile | policy.AccessReadDir | policy.AccessWriteFile | policy.AccessMakeSym},
	}}
	a := New(plan, root.RealpathNow)
	eacces := func(p, given string) *trace.Event {
		return &trace.Event{Op: trace.OpOpen, Path: p, Given: given, Axis: "read", Ret: -int64(syscall.EACCES), Errno: "EACCES"}
	}
	// Before the link exists, /work/l is an allowed file (a refusal there
	// is a file-mode matter, not the plan's).
	a.Observe(eacces("/work/l", ""))
	if err := os.Symlink("/secret/key", filepath.Join(dir, "work", "l")); err != nil {
		t.Fatal(err)
	}
	a.Observe(eacces("/work/l", ""))
	a.Observe(eacces("/work/secret/key", "/work/s/../secret/key"))
	got := a.Denials()
	want := []Denial{
		{Op: "open", Axis: "read", Path: "/work/l", Real: "/secret/key", Errno: "EACCES", Count: 1},
		{Op: "open", Axis: "read", Path: "/work/secret/key", Real: "/secret/key", Errno: "EACCES", Count: 1},
	}
	if len(got) != len(want) {
		t.Fatalf("denials %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("denial %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestRefusedReadOfAFileInAListableDirectory: a directory whose rule
// grants READ_DIR (and write rights) but not READ_FILE — the published
// rule for writing a file in it — does not permit reading its files: a
// refused read-only open of a file there is a denial, judged on what the
// path names in the root; the same open of a directory is not.
func TestRefusedReadOfAFileInAListableDirectory(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"app/config", "app/sub"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "app/config/deploy.key"), []byte("k"), 0o600); err != nil {
		t.Fatal(err)
	}
	root, err := policy.NewRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	plan := &policy.Plan{Rules: []policy.Rule{{Path: "/app", Dir: true, Access: policy.AccessReadDir | policy.AccessWriteFile | policy.AccessMakeReg}}}
	refused := func(p string) trace.Event {
		return trace.Event{Op: trace.OpOpen, Path: p, Axis: "read", Ret: -int64(syscall.EACCES), Errno: "EACCES"}
	}
	for _, tc := range []struct {
		auditor *Auditor
		want    int
	}{
		{NewInRoot(plan, root), 1},
		{New(plan, root.RealpathNow), 0}, // without the root's answer a file or a directory could have been opened
	} {
		for _, p := range []string{"/app/config/deploy.key", "/app/sub"} {
			ev := refused(p)
			tc.auditor.Observe(&ev)
		}
		if got := tc.auditor.Denials(); len(got) != tc.want || tc.want == 1 && got[0].Path != "/app/config/deploy.key" {
			t.Fatalf("denials %+v, want %d (the key)", got, tc.want)
		}
	}
}

// TestLibraryMappedWithoutExecuteRight: a library that the plan lets the
// agent read and write but not execute, loaded with LD_PRELOAD (mapped
// executable), is an exec_via_mmap access listed once per file, counted
// per mapping; mapping a library the plan lets run, a failed mapping and
// an unconstrained run are not.
func TestLibraryMappedWithoutExecuteRight(t *testing.T) {
	plan := &policy.Plan{Rules: []policy.Rule{
		{Path: "/usr/lib", Dir: true, Access: policy.AccessReadFile | policy.AccessWriteFile | policy.AccessMakeReg},
		{Path: "/work", Dir: true, Access: policy.AccessReadFile | policy.AccessWriteFile},
		{Path: "/opt/tool", Dir: true, Access: policy.AccessExecute | policy.AccessReadFile},
	}}
	evil := trace.Event{Op: trace.OpMmap, Path: "/work/.git/x.so", Real: "/work/.git/x.so", Dev: 5, Ino: 9,
		Flags: 5, Syscall: "mmap", Axis: trace.AxisExecute, PID: 3, TGID: 3, Comm: "git"}
	mapExec := func(p string, ino uint64) trace.Event {
		return trace.Event{Op: trace.OpMmap, Path: p, Real: p, Dev: 5, Ino: ino, Flags: 5, Syscall: "mmap", Axis: trace.AxisExecute}
	}
	events := []trace.Event{
		// the loader maps libc for every program: a system library, read only
		mapExec("/usr/lib/x86_64-linux-gnu/libc.so.6", 1),
		// an execute right covers its own libraries
		mapExec("/opt/tool/libtool.so", 2),
		evil,
		evil, // another process maps it again
		{Op: trace.OpMmap, Path: "/work/y.so", Real: "/work/y.so", Flags: 5, Syscall: "mmap", Axis: trace.AxisExecute,
			Ret: -int64(syscall.EPERM), Errno: "EPERM"},
		// a library the tree wrote into a library directory is no system library
		{Op: trace.OpOpen, Path: "/usr/lib/libplanted.so", Real: "/usr/lib/libplanted.so", Dev: 5, Ino: 11,
			Axis: trace.AxisWrite, Flags: syscall.O_WRONLY | syscall.O_CREAT},
		{Op: trace.OpRename, Path: "/usr/lib/libplanted.so", Path2: "/usr/lib/libz.so.1", Axis: trace.AxisWrite},
		mapExec("/usr/lib/libz.so.1", 11),
	}
	a := New(plan, same)
	for i := range events {
		a.Observe(&events[i])
	}
	want := []Denial{
		{Op: OpExecViaMmap, Axis: "execute", Path: "/work/.git/x.so", Errno: RanWithoutExecute, Count: 2},
		{Op: OpExecViaMmap, Axis: "execute", Path: "/usr/lib/libz.so.1", Errno: RanWithoutExecute, Count: 1},
	}
	if got := a.Denials(); !slices.Equal(got, want) {
		t.Errorf("denials %+v, want %+v", got, want)
	}
	m := a.MmapExecs()
	if len(m) != 2 || m[0].Path != "/work/.git/x.so" || m[0].Ino != 9 || m[0].Comm != "git" || m[0].Syscall != "mmap" {
		t.Errorf("mmap execs %+v", m)
	}
	u := New(nil, same)
	u.Observe(&evil)
	if len(u.Denials()) != 0 || len(u.MmapExecs()) != 0 {
		t.Errorf("unconstrained run: %+v %+v", u.Denials(), u.MmapExecs())
	}
}

// TestWrittenFilesOverflowFailsClosed: past MaxWrittenFiles the Auditor
// cannot tell what the tree wrote, so no library is exempt any more.
func TestWrittenFilesOverflowFailsClosed(t *testing.T) {
	plan := &policy.Plan{Rules: []policy.Rule{{Path: "/tmp", Dir: true, Access: policy.AccessWriteFile | policy.AccessMakeReg}}}
	a := New(plan, same)
	for i := 0; i <= MaxWrittenFiles; i++ {
		a.Observe(&trace.Event{Op: trace.OpOpen, Path: "/tmp/f", Real: "/tmp/f", Dev: 1, Ino: uint64(100 + i),
			Axis: trace.AxisWrite, Flags: syscall.O_WRONLY | syscall.O_CREAT})
	}
	a.Observe(&trace.Event{Op: trace.OpMmap, Path: "/usr/lib/libc.so.6", Real: "/usr/lib/libc.so.6", Dev: 1, Ino: 7,
		Flags: 5, Syscall: "mmap", Axis: trace.AxisExecute})
	if m := a.MmapExecs(); len(m) != 1 || m[0].Path != "/usr/lib/libc.so.6" {
		t.Errorf("mmap execs after overflow %+v, want libc listed", m)
	}
}

// TestReplacedFileLosesItsRule: Landlock rules hold on inodes. A file the
// agent removes and makes again (git checking out README.md) is a new
// inode without the old one's rule, so a refused read of it is a denial
// although the plan names the path; a file renamed keeps its rule under
// the new name, and a name renamed over loses it.
func TestReplacedFileLosesItsRule(t *testing.T) {
	plan := &policy.Plan{Rules: []policy.Rule{
		{Path: "/w", Dir: true, Access: policy.AccessWriteFile | policy.AccessMakeReg | policy.AccessRemoveFile},
		{Path: "/w/README.md", Access: policy.AccessReadFile | policy.AccessWriteFile},
		{Path: "/w/a", Access: policy.AccessReadFile},
		{Path: "/w/b", Access: policy.AccessReadFile},
	}}
	eacces := func(p string) trace.Event {
		return trace.Event{Op: trace.OpOpen, Path: p, Axis: "read", Flags: syscall.O_RDONLY, Ret: -int64(syscall.EACCES), Errno: "EACCES"}
	}
	a := New(plan, same)
	events := []trace.Event{
		eacces("/w/README.md"), // the original inode: file modes refused it, not Landlock
		{Op: trace.OpUnlink, Path: "/w/README.md", Axis: "write"},
		{Op: trace.OpOpen, Path: "/w/README.md", Axis: "write", Flags: syscall.O_WRONLY | syscall.O_CREAT | syscall.O_EXCL},
		eacces("/w/README.md"),
		{Op: trace.OpRename, Path: "/w/a", Path2: "/w/c", Axis: "write"},
		eacces("/w/c"), // a's inode, with its rule
		{Op: trace.OpRename, Path: "/w/tmp", Path2: "/w/b", Axis: "write"},
		eacces("/w/b"), // b's inode is gone
		{Op: trace.OpUnlink, Path: "/w/gone", Axis: "write", Ret: -int64(syscall.ENOENT), Errno: "ENOENT"},
	}
	for i := range events {
		a.Observe(&events[i])
	}
	var got []string
	for _, d := range a.Denials() {
		got = append(got, d.Path)
	}
	if len(got) != 2 || got[0] != "/w/README.md" || got[1] != "/w/b" {
		t.Fatalf("denials %v, want the replaced /w/README.md and /w/b", got)
	}
	if len(plan.Rules) != 4 || plan.Rules[1].Path != "/w/README.md" || plan.Rules[2].Path != "/w/a" {
		t.Fatalf("the caller's plan changed: %+v", plan.Rules)
	}
}

// TestRefusedInterpreterOfAPermittedScript: the kernel refuses the exec of
// a "#!" script the plan permits when the plan refuses its interpreter;
// the denial names the interpreter's real path (the script as Path2).
// A script whose interpreter is permitted, a binary and a FIFO (never
// opened: it would block) give no such denial; a missing program the plan
// does not name is an ordinary denial.
func TestRefusedInterpreterOfAPermittedScript(t *testing.T) {
	dir := t.TempDir()
	file := func(p, content string) {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	file("usr/bin/dash", "\x7fELF")
	file("usr/bin/bash", "\x7fELF")
	file("usr/bin/zcat", "#!/bin/sh\nexec gzip -cd \"$@\"\n")
	file("usr/bin/ok.sh", "#!/usr/bin/bash\n")
	file("usr/bin/prog", "\x7fELF")
	for _, l := range [][2]string{{"bin", "usr/bin"}, {"usr/bin/sh", "dash"}} {
		if err := os.Symlink(l[1], filepath.Join(dir, l[0])); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "usr/bin/fifo"), 0o755); err != nil {
		t.Fatal(err)
	}
	root, err := policy.NewRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	x := policy.AccessExecute | policy.AccessReadFile
	plan := &policy.Plan{Rules: []policy.Rule{{Path: "/usr/bin/zcat", Access: x}, {Path: "/usr/bin/ok.sh", Access: x},
		{Path: "/usr/bin/bash", Access: x}, {Path: "/usr/bin/prog", Access: x}, {Path: "/usr/bin/fifo", Access: x}}}
	a := NewInRoot(plan, root)
	for _, p := range []string{"/usr/bin/zcat", "/bin/zcat", "/usr/bin/ok.sh", "/usr/bin/prog", "/usr/bin/fifo", "/usr/bin/missing"} {
		ev := trace.Event{Op: trace.OpExec, Path: p, Axis: "execute", Ret: -int64(syscall.EACCES), Errno: "EACCES"}
		a.Observe(&ev)
	}
	want := []Denial{{Op: "exec", Axis: "execute", Path: "/usr/bin/dash", Path2: "/usr/bin/zcat", Errno: "EACCES", Count: 2},
		{Op: "exec", Axis: "execute", Path: "/usr/bin/missing", Errno: "EACCES", Count: 1}}
	if got := a.Denials(); !slices.Equal(got, want) {
		t.Fatalf("denials %+v, want %+v", got, want)
	}
}
