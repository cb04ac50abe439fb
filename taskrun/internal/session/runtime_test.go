package session

import (
	"reflect"
	"testing"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/tracer/trace"
)

// TestRuntimeOpensDiscount: the toolbox's own refused start-up opens
// (its init's, of the runtime files) leave the denials, as many as it
// made; the agent's own refusals of the same files, other processes',
// other files' and opens outside the plan stay.
func TestRuntimeOpensDiscount(t *testing.T) {
	ro := &runtimeOpens{pid: 7, refused: map[string]int{}}
	for _, ev := range []trace.Event{
		{TGID: 7, Op: trace.OpOpen, Path: "/proc/self/cgroup", Ret: -13},
		{TGID: 7, Op: trace.OpOpen, Path: "/proc/self/cgroup", Ret: -13},
		{TGID: 7, Op: trace.OpOpen, Path: "/proc/self/mountinfo", Ret: 3},   // not refused
		{TGID: 8, Op: trace.OpOpen, Path: "/proc/self/mountinfo", Ret: -13}, // the agent's
		{TGID: 7, Op: trace.OpOpen, Path: "/etc/shadow", Ret: -13},          // not a runtime file
	} {
		ro.observe(&ev)
	}
	got := ro.discount([]audit.Denial{
		{Op: "open", Path: "/proc/self/cgroup", Errno: "EACCES", Count: 3},
		{Op: "open", Path: "/proc/self/mountinfo", Errno: "EACCES", Count: 1},
		{Op: "open", Path: "/etc/shadow", Errno: "EACCES", Count: 1},
		{Op: "open", Path: "/proc/self/mountinfo", Errno: audit.OutsidePlan, Count: 1},
	})
	want := []audit.Denial{
		{Op: "open", Path: "/proc/self/cgroup", Errno: "EACCES", Count: 1},
		{Op: "open", Path: "/proc/self/mountinfo", Errno: "EACCES", Count: 1},
		{Op: "open", Path: "/etc/shadow", Errno: "EACCES", Count: 1},
		{Op: "open", Path: "/proc/self/mountinfo", Errno: audit.OutsidePlan, Count: 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("discount = %+v, want %+v", got, want)
	}
	if d := (*runtimeOpens)(nil).discount(want); !reflect.DeepEqual(d, want) {
		t.Errorf("nil discount changed the denials: %+v", d)
	}
}
