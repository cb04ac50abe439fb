package oracle

import (
	"reflect"
	"testing"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/tracer/trace"
)

// TestDeriveMetadataChangesAreWrites: chmod, chown and setxattr of a
// file are writes of it, as the published specs count them (a task whose
// oracle only changes modes recorded no write at all); lchown changes
// the link, not its target; a failed chmod is no access; mknod makes a
// file.
func TestDeriveMetadataChangesAreWrites(t *testing.T) {
	env := fakeEnv{links: map[string]string{"/app/link": "/app/target"},
		files: map[string]bool{"/app": true, "/app/run.sh": true, "/app/data": true, "/app/link": true, "/app/target": true}}
	events := []trace.Event{
		{Op: trace.OpChmod, Syscall: "fchmodat", Path: "/app/run.sh", Axis: trace.AxisWrite},
		{Op: trace.OpChown, Syscall: "fchown", Path: "/app/data", Axis: trace.AxisWrite},
		{Op: trace.OpChown, Syscall: "lchown", Path: "/app/link", Axis: trace.AxisWrite},
		{Op: trace.OpSetxattr, Syscall: "setxattr", Path: "/app/link", Axis: trace.AxisWrite},
		{Op: trace.OpChmod, Syscall: "chmod", Path: "/app/denied", Axis: trace.AxisWrite, Ret: -1, Errno: "EPERM"},
		{Op: trace.OpMknod, Syscall: "mknodat", Path: "/app/fifo", Axis: trace.AxisWrite},
	}
	acc := Derive(events, env)
	want := []string{"/app/data", "/app/fifo", "/app/link", "/app/run.sh", "/app/target"}
	if got := acc.Sorted(policy.Write); !reflect.DeepEqual(got, want) {
		t.Errorf("write %v, want %v", got, want)
	}
	if !acc.Created["/app/fifo"] || len(acc.Paths[policy.Read]) != 0 {
		t.Errorf("created %v, read %v", acc.Created, acc.Paths[policy.Read])
	}
}
