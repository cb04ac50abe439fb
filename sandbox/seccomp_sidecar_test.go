package sandbox

import (
	"os/exec"
	"reflect"
	"strings"
	"testing"

	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/authbench/authbench/internal/testenv"
)

// TestSidecarProfileIsTheContainerProfileWithOpenat2: the sidecar
// profile differs from the container profile only in allowing openat2
// (no openat2 agent beside a service) and compiles.
func TestSidecarProfileIsTheContainerProfileWithOpenat2(t *testing.T) {
	side, cont := SidecarProfile(), ContainerProfile()
	notified := 0
	for i := range cont.Syscalls {
		c, s := cont.Syscalls[i], side.Syscalls[i]
		if c.Action == specs.ActNotify {
			notified++
			if s.Action != specs.ActAllow || !reflect.DeepEqual(s.Names, []string{"openat2"}) {
				t.Errorf("notify rule %v became %s", s.Names, s.Action)
			}
			continue
		}
		if !reflect.DeepEqual(c, s) {
			t.Errorf("rule %d differs: %+v vs %+v", i, c, s)
		}
	}
	if notified != 1 || len(side.Syscalls) != len(cont.Syscalls) {
		t.Fatalf("%d notify rules, %d vs %d rules", notified, len(side.Syscalls), len(cont.Syscalls))
	}
	if f, err := SidecarFilter(); err != nil || len(f.Program) == 0 {
		t.Fatalf("compile: %v", err)
	}
}

// TestConfinedDieWithParentInstallsTheFilter: a command run under
// die-with-parent with ConfineFlag has a seccomp filter (Seccomp 2) and
// its unshare of a user namespace fails with EPERM; without the flag
// (as compose services ran) it has none.
func TestConfinedDieWithParentInstallsTheFilter(t *testing.T) {
	testenv.NeedRoot(t)
	bin := testenv.Authbench(t)
	probe := []string{"sh", "-c", "grep Seccomp: /proc/self/status; unshare -U true; echo unshare=$?"}
	out, err := exec.Command(bin, ConfinedArgv(bin, probe)[1:]...).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Seccomp:\t2") || !strings.Contains(string(out), "unshare=1") ||
		!strings.Contains(string(out), "Operation not permitted") {
		t.Fatalf("confined: %v\n%s", err, out)
	}
	out, err = exec.Command(bin, DieWithParentArgv(bin, probe)[1:]...).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Seccomp:\t0") || !strings.Contains(string(out), "unshare=0") {
		t.Fatalf("unconfined: %v\n%s", err, out)
	}
}
