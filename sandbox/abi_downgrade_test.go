package sandbox

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/authbench/authbench/policy"
	"golang.org/x/sys/unix"
)

// TestEveryABI applies the same plan as each Landlock ABI from 1 up to
// the kernel's, and checks the behaviour that changes between versions
// against EnforcementFor: truncate is unrestricted before ABI 3, renaming
// across directories is refused outright on ABI 1 (no refer right), and
// abstract unix sockets to outside listeners are refused from ABI 6.
func TestEveryABI(t *testing.T) {
	kernel := requireLandlock(t, 1)
	name := fmt.Sprintf("authbench-abi-%d", os.Getpid())
	ln, err := listenAbstract(name)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var table strings.Builder
	for abi := 1; abi <= min(kernel, len(landlockABIs)); abi++ {
		f := newEscapeFixture(t)
		if err := os.MkdirAll(f.allowed+"/sub", 0o755); err != nil {
			t.Fatal(err)
		}
		pl := hostPlan(t, f.policy(), policy.NoBaseline())
		ops := []probeOp{
			op("truncate", f.readonly+"/notes.txt"),
			{Op: "rename", Path: f.allowed + "/a.txt", Path2: f.allowed + "/sub/a.txt"},
			op("abstract", name),
			op("read", f.secret),
		}
		res, c := probe(t, Launch{Plan: withSelf(t, pl), LandlockABI: abi}, ops, nil)
		if len(res) != len(ops) {
			t.Fatalf("ABI %d: probe: %v %s", abi, c.err, c.stderr)
		}
		enf := EnforcementFor(abi)
		want := []bool{
			!enf.Handled.Has(policy.AccessTruncate),
			enf.Handled.Has(policy.AccessRefer),
			len(enf.Scopes) == 0,
			false,
		}
		fmt.Fprintf(&table, "  ABI %d:", abi)
		for i, r := range res {
			got := r.Errno == 0
			fmt.Fprintf(&table, " %s=%v", ops[i].Op, got)
			if got != want[i] {
				t.Errorf("ABI %d: %s allowed=%v (errno %s), want %v", abi, ops[i].Op, got, unix.ErrnoName(unix.Errno(r.Errno)), want[i])
			}
		}
		table.WriteString("\n")
	}
	t.Logf("behaviour per Landlock ABI (kernel %d):\n%s", kernel, table.String())
}
