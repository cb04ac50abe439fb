package sandbox

import (
	"fmt"
	"net"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/capability"
)

// TestKnownGaps documents what Landlock (ABI ≤ 8) does not restrict, so
// that the report states it rather than hides it: metadata calls on
// forbidden files, and connecting to a pathname unix socket served from
// outside (restricted from ABI 9 with the resolve_unix right). It logs
// the outcomes and fails only if a gap behaves unlike documented on a
// kernel that should close it.
func TestKnownGaps(t *testing.T) {
	abi := requireLandlock(t, 1)
	f := newEscapeFixture(t)
	sock := f.forbidden + "/service.sock"
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	filter, err := CompileProfile(DefaultProfile(), CompileOptions{Capabilities: capability.Held(nil)})
	if err != nil {
		t.Fatal(err)
	}
	spec := escapeSpec(t, f, filter)
	gaps := []struct {
		name string
		op   probeOp
		note string
	}{
		{"stat a forbidden file", op("stat", f.secret), "metadata is not a Landlock right"},
		{"chmod a forbidden file", op("chmod", f.secret), "not a Landlock right; run with --uid so file ownership limits it"},
		{"chattr +A (FS_IOC_SETFLAGS) a read-only file", probeOp{Op: "setflags", Path: f.readonly + "/notes.txt", Arg: fsNoatimeFl},
			"Landlock's ioctl right covers devices only; the generation filter refuses it"},
		{"connect to a pathname unix socket outside", op("unixconnect", sock), "restricted from Landlock ABI 9 (resolve_unix)"},
	}
	ops := make([]probeOp, len(gaps))
	for i, g := range gaps {
		ops[i] = g.op
	}
	res, c := probe(t, spec, ops, nil)
	if len(res) != len(gaps) {
		t.Fatalf("probe: %v %s", c.err, c.stderr)
	}
	var b strings.Builder
	for i, g := range gaps {
		outcome := "works (gap)"
		if res[i].Errno != 0 {
			outcome = "refused: " + unix.ErrnoName(unix.Errno(res[i].Errno))
		}
		fmt.Fprintf(&b, "  %-45s %-22s %s\n", g.name, outcome, g.note)
	}
	st, _ := os.Stat(f.secret)
	t.Logf("known gaps (Landlock ABI %d; secret.txt mode now %v):\n%s", abi, st.Mode().Perm(), b.String())
	if abi >= 9 && res[3].Errno == 0 {
		t.Errorf("ABI %d handles resolve_unix, yet the connect to an outside socket worked", abi)
	}
}
