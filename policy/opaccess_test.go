package policy

import (
	"syscall"
	"testing"
)

func TestPlanPermits(t *testing.T) {
	pl := &Plan{Rules: []Rule{
		{Path: "/data", Dir: true, Access: accessReadDir},
		{Path: "/data/in.txt", Access: AccessReadFile},
		{Path: "/out", Dir: true, Access: accessWriteDir},
		{Path: "/new", Dir: true, Access: accessCreate},
		{Path: "/usr/bin/tool", Access: accessExec},
		{Path: "/logs/app.log", Access: accessWriteFile},
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
		{Operation{Op: "mkdir", Path: "/out/sub"}, true},
		{Operation{Op: "mkdir", Path: "/data/sub"}, false},
		{Operation{Op: "unlink", Path: "/out/f"}, true},
		{Operation{Op: "unlink", Path: "/new/f"}, false},
		{Operation{Op: "rename", Path: "/out/a", Path2: "/out/b"}, true},
		{Operation{Op: "rename", Path: "/data/in.txt", Path2: "/out/in.txt"}, false},
		{Operation{Op: "symlink", Path: "/out/link", Path2: "/etc/shadow"}, true},
		{Operation{Op: "truncate", Path: "/data/in.txt"}, false},
		{Operation{Op: "chdir", Path: "/anywhere"}, true},
	}
	for _, tt := range tests {
		if got := pl.Permits(tt.op, same); got != tt.want {
			t.Errorf("Permits(%+v) = %v, want %v", tt.op, got, tt.want)
		}
	}
}
