package policy

import (
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

func TestPlanPermits(t *testing.T) {
	pl := &Plan{Rules: []Rule{
		{Path: "/data", Dir: true, Access: accessReadDir},
		{Path: "/data/in.txt", Access: AccessReadFile},
		{Path: "/out", Dir: true, Access: accessWriteDir},
		{Path: "/new", Dir: true, Access: accessCreate},
		{Path: "/usr/bin/tool", Access: accessExec},
		{Path: "/logs/app.log", Access: accessWriteFile},
		{Path: "/bin/x-only", Access: AccessExecute},
		{Path: "/wd", Dir: true, Access: accessPublishedWrite},
	}}
	same := func(p string) string { return p }
	tests := []struct {
		op   Operation
		want bool
	}{
		{Operation{Op: "open", Path: "/data/x.csv"}, true},
		{Operation{Op: "open", Path: "/etc/passwd"}, false},
		{Operation{Op: "open", Path: "/data/x.csv", Flags: syscall.O_WRONLY}, false},
		{Operation{Op: "open", Path: "/logs/app.log", Flags: syscall.O_WRONLY | syscall.O_TRUNC}, true},
		{Operation{Op: "open", Path: "/logs/app.log", Flags: syscall.O_RDWR}, false},
		{Operation{Op: "open", Path: "/logs/other.log", Flags: syscall.O_WRONLY | syscall.O_CREAT}, false},
		{Operation{Op: "open", Path: "/new/file", Flags: syscall.O_WRONLY | syscall.O_CREAT | syscall.O_TRUNC}, true},
		{Operation{Op: "exec", Path: "/usr/bin/tool"}, true},
		{Operation{Op: "exec", Path: "/data/in.txt"}, false},
		{Operation{Op: "exec", Path: "/bin/x-only"}, false}, // the kernel also needs read_file
		{Operation{Op: "open", Path: "/wd/f"}, true},        // read_dir may have been a directory's
		{Operation{Op: "open", Path: "/wd/f", Target: TargetFile}, false},
		{Operation{Op: "open", Path: "/wd/sub", Target: TargetDir}, true},
		{Operation{Op: "mkdir", Path: "/out/sub"}, true},
		{Operation{Op: "mkdir", Path: "/data/sub"}, false},
		{Operation{Op: "unlink", Path: "/out/f"}, true},
		{Operation{Op: "unlink", Path: "/new/f"}, false},
		{Operation{Op: "rename", Path: "/out/a", Path2: "/out/b"}, true},
		{Operation{Op: "rename", Path: "/data/in.txt", Path2: "/out/in.txt"}, false},
		{Operation{Op: "symlink", Path: "/out/link", Path2: "/etc/shadow"}, true},
		{Operation{Op: "truncate", Path: "/data/in.txt"}, false},
		{Operation{Op: "chdir", Path: "/anywhere"}, true},
		{Operation{Op: "open", Path: "/data", Flags: syscall.O_RDONLY | syscall.O_DIRECTORY}, true},
		{Operation{Op: "open", Path: "/data/in.txt", Flags: unix.O_PATH}, true},
		{Operation{Op: "open", Path: "/etc/shadow", Flags: unix.O_PATH}, true},
	}
	for _, tt := range tests {
		if got := pl.Permits(tt.op, same); got != tt.want {
			t.Errorf("Permits(%+v) = %v, want %v", tt.op, got, tt.want)
		}
	}
}

// TestOpenCreateNeedsBothHalves: an open that reads (or writes) and
// creates needs the open rights on the file and MAKE_REG on its
// directory; neither half stands in for the other. git's
// open(index.lock, O_RDWR|O_CREAT|O_EXCL) under a plan that may only
// create and write there is refused by the kernel (no read_file), and
// the plan must say so.
func TestOpenCreateNeedsBothHalves(t *testing.T) {
	createOnly := &Plan{Rules: []Rule{{Path: "/repo/.git", Dir: true, Access: accessCreate}}}
	createRead := &Plan{Rules: []Rule{{Path: "/repo/.git", Dir: true, Access: accessCreate | AccessReadFile}}}
	readWrite := &Plan{Rules: []Rule{{Path: "/repo/.git", Dir: true, Access: AccessReadFile | AccessWriteFile}}}
	fileOnly := &Plan{Rules: []Rule{{Path: "/repo/.git/index", Access: accessWriteFile | AccessReadFile}}}
	same := func(p string) string { return p }
	const (
		rdwrCreat = syscall.O_RDWR | syscall.O_CREAT
		excl      = syscall.O_EXCL
		trunc     = syscall.O_TRUNC
	)
	tests := []struct {
		pl     *Plan
		path   string
		flags  uint64
		target TargetState
		want   bool
	}{
		{createOnly, "/repo/.git/index.lock", rdwrCreat | excl, TargetUnknown, false},
		{createOnly, "/repo/.git/index.lock", rdwrCreat, TargetUnknown, false},
		{createOnly, "/repo/.git/index.lock", rdwrCreat, TargetMissing, false},
		{createOnly, "/repo/.git/index.lock", syscall.O_RDONLY | syscall.O_CREAT, TargetMissing, false},
		{createOnly, "/repo/.git/index.lock", syscall.O_WRONLY | syscall.O_CREAT | excl, TargetUnknown, true},
		{createRead, "/repo/.git/index.lock", rdwrCreat | excl, TargetUnknown, true},
		// read and write but no make_reg: an existing file opens, a new one is refused
		{readWrite, "/repo/.git/index.lock", rdwrCreat, TargetFile, true},
		{readWrite, "/repo/.git/index.lock", rdwrCreat, TargetMissing, false},
		{readWrite, "/repo/.git/index.lock", rdwrCreat | excl, TargetUnknown, false},
		{readWrite, "/repo/.git/index.lock", rdwrCreat, TargetUnknown, true},
		// O_TRUNC: truncate on an existing file, make_reg on a new one
		{readWrite, "/repo/.git/index.lock", rdwrCreat | trunc, TargetFile, false},
		{readWrite, "/repo/.git/index.lock", rdwrCreat | trunc, TargetUnknown, false},
		{createRead, "/repo/.git/index.lock", rdwrCreat | trunc, TargetMissing, true},
		{createRead, "/repo/.git/index.lock", rdwrCreat | trunc, TargetUnknown, true},
		{fileOnly, "/repo/.git/index", rdwrCreat | trunc, TargetFile, true},
		{fileOnly, "/repo/.git/index", rdwrCreat | trunc, TargetUnknown, true},
		{fileOnly, "/repo/.git/index", rdwrCreat, TargetMissing, false},
	}
	for _, tt := range tests {
		op := Operation{Op: "open", Path: tt.path, Flags: tt.flags, Target: tt.target}
		if got := tt.pl.Permits(op, same); got != tt.want {
			t.Errorf("plan %v: Permits(%s, %#o, target %d) = %v, want %v", tt.pl.Rules[0].Access, tt.path, tt.flags, tt.target, got, tt.want)
		}
	}
}
