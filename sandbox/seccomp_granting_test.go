package sandbox

import (
	"reflect"
	"testing"

	specs "github.com/opencontainers/runtime-spec/specs-go"
	"golang.org/x/sys/unix"
)

// TestGrantingProfileRefusesOpenat2: the granting profile differs from
// the container profile only in answering openat2 ENOSYS instead of
// handing it to the openat2 agent, and its filter notifies nothing (no
// agent is started beside the tool process).
func TestGrantingProfileRefusesOpenat2(t *testing.T) {
	gr, cont := GrantingProfile(), ContainerProfile()
	if len(gr.Syscalls) != len(cont.Syscalls) {
		t.Fatalf("%d vs %d rules", len(gr.Syscalls), len(cont.Syscalls))
	}
	changed := 0
	for i := range cont.Syscalls {
		c, g := cont.Syscalls[i], gr.Syscalls[i]
		if c.Action == specs.ActNotify {
			changed++
			if g.Action != specs.ActErrno || g.ErrnoRet == nil || *g.ErrnoRet != uint(unix.ENOSYS) || !reflect.DeepEqual(g.Names, []string{"openat2"}) {
				t.Errorf("notify rule %v became %+v", g.Names, g)
			}
			continue
		}
		if !reflect.DeepEqual(c, g) {
			t.Errorf("rule %d differs: %+v vs %+v", i, c, g)
		}
	}
	if changed != 1 {
		t.Fatalf("%d notify rules", changed)
	}
	f, err := GrantingFilter()
	if err != nil || len(f.Program) == 0 || f.Notifies() {
		t.Fatalf("compile: %v (notifies %v)", err, f != nil && f.Notifies())
	}
}
