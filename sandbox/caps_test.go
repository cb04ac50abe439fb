package sandbox

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/capability"
)

// capLines returns the Cap* lines of a /proc/self/status.
func capLines(status string) map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(status, "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.HasPrefix(k, "Cap") {
			m[k] = strings.TrimSpace(v)
		}
	}
	return m
}

// TestConfinedRootCapabilities: a confined uid-0 tree holds exactly the
// capabilities it was granted, as Docker gives a root container its
// set: effective, permitted and bounding are the granted ones,
// inheritable and ambient empty, no securebits; each granted one works
// where the same operation is refused without it.
func TestConfinedRootCapabilities(t *testing.T) {
	requireRoot(t, "capabilities of a uid-0 tree")
	requireLandlock(t, 1)
	for _, c := range []struct {
		cap  string
		ops  func(f escapeFixture) []probeOp
		prep func(*testing.T, escapeFixture, *escapeWorld, *Launch) func()
	}{
		{"", nil, nil},
		{"CAP_CHOWN", func(f escapeFixture) []probeOp {
			return []probeOp{{Op: "chown", Path: f.allowed + "/a.txt", Arg: otherUID}}
		}, nil},
		{"CAP_FOWNER", func(f escapeFixture) []probeOp {
			return []probeOp{{Op: "chmodmode", Path: f.allowed + "/other.txt", Arg: 0o0705}}
		}, withOtherUIDFile("allowed")},
		{"CAP_DAC_OVERRIDE", func(f escapeFixture) []probeOp {
			return []probeOp{op("read", f.readonly+"/other.txt")}
		}, withOtherUIDFile("readonly")},
	} {
		for _, grant := range []bool{false, true} {
			name := fmt.Sprintf("%s granted=%v", c.cap, grant)
			f := newEscapeFixture(t)
			filter, err := CompileProfile(DefaultProfile(), CompileOptions{Capabilities: capability.Held(nil)})
			if err != nil {
				t.Fatal(err)
			}
			spec := escapeSpec(t, f, filter)
			if c.prep != nil {
				c.prep(t, f, nil, &spec)
			}
			var want uint64
			if grant && c.cap != "" {
				spec.Capabilities = []string{c.cap}
				nr, _ := capability.Number(c.cap)
				want = 1 << uint(nr)
			}
			ops := []probeOp{op("read", "/proc/self/status"), op("securebits", "")}
			if c.ops != nil {
				ops = append(ops, c.ops(f)...)
			}
			res, cr := probe(t, spec, ops, nil)
			if len(res) != len(ops) {
				t.Fatalf("%s: probe gave %v (%+v)", name, res, cr)
			}
			checkCapSets(t, name, res[0].Out, capSets{effective: want, permitted: want}, want)
			if res[1].Out != "0" {
				t.Errorf("%s: securebits %s, want 0 (as Docker leaves them)", name, res[1].Out)
			}
			if c.ops == nil {
				continue
			}
			last := res[len(res)-1]
			if grant != (last.Errno == 0) {
				t.Errorf("%s: %s errno %d", name, last.Op, last.Errno)
			}
		}
	}
}

// checkCapSets compares the Cap* lines of a /proc/PID/status with the
// sets want and the bounding set bnd; the ambient set must be empty.
func checkCapSets(t *testing.T, name, status string, want capSets, bnd uint64) {
	t.Helper()
	lines := capLines(status)
	for set, v := range map[string]uint64{"CapInh": want.inheritable, "CapPrm": want.permitted, "CapEff": want.effective, "CapBnd": bnd, "CapAmb": 0} {
		if got, wantHex := lines[set], fmt.Sprintf("%016x", v); got != wantHex {
			t.Errorf("%s: %s = %s, want %s", name, set, got, wantHex)
		}
	}
}

// TestDockerCapabilitiesSurviveExec: with Docker's set, uid 0 keeps it
// through no_new_privs and two further execs (a shell running cat), as in
// a Docker container; a non-root uid holds it in its bounding set only,
// like Docker's USER; neither gets an ambient or inheritable set.
func TestDockerCapabilitiesSurviveExec(t *testing.T) {
	requireRoot(t, "sandbox-init grants capabilities")
	granted, err := capability.Numbers(capability.Docker)
	if err != nil {
		t.Fatal(err)
	}
	docker := capMask(granted)
	for _, c := range []struct {
		uid  int
		want capSets
	}{
		{0, capSets{effective: docker, permitted: docker}},
		{65534, capSets{}},
	} {
		uid, gid := c.uid, c.uid
		spec := Launch{Path: "/bin/sh", Args: []string{"sh", "-c", "exec /bin/cat /proc/self/status"},
			UID: &uid, GID: &gid, DropCapabilities: true, NoNewPrivs: true, CloseFDs: true, Capabilities: capability.Docker}
		res := runChild(t, spec, nil)
		if res.err != nil || res.status != 0 {
			t.Fatalf("uid %d: %v status %d (%s)", uid, res.err, res.status, res.stderr)
		}
		checkCapSets(t, fmt.Sprintf("uid %d", uid), res.stdout, c.want, docker)
	}
}

// TestDACOverrideDoesNotBypassLandlock: a uid-0 tree with Docker's set
// (CAP_DAC_OVERRIDE among them) reads
// another uid's 0600 file inside π, and still gets EACCES on a file and a
// directory outside π: Landlock does not look at capabilities.
func TestDACOverrideDoesNotBypassLandlock(t *testing.T) {
	requireRoot(t, "capabilities of a uid-0 tree")
	requireLandlock(t, 1)
	f := newEscapeFixture(t)
	withOtherUIDFile("readonly")(t, f, nil, nil)
	withOtherUIDFile("forbidden")(t, f, nil, nil)
	filter, err := CompileProfile(DefaultProfile(), CompileOptions{Capabilities: capability.Held(capability.Docker)})
	if err != nil {
		t.Fatal(err)
	}
	spec := escapeSpec(t, f, filter)
	spec.Capabilities = capability.Docker
	ops := []probeOp{
		op("read", f.readonly+"/other.txt"),
		op("read", f.forbidden+"/other.txt"),
		op("read", f.secret),
		op("write", f.forbidden+"/other.txt"),
		op("list", f.forbidden),
	}
	res, cr := probe(t, spec, ops, nil)
	if len(res) != len(ops) {
		t.Fatalf("probe gave %v (%+v)", res, cr)
	}
	if res[0].Errno != 0 {
		t.Errorf("read of another uid's 0600 file inside π: errno %d, want success (CAP_DAC_OVERRIDE)", res[0].Errno)
	}
	for _, r := range res[1:] {
		if unix.Errno(r.Errno) != unix.EACCES {
			t.Errorf("%s %s outside π with CAP_DAC_OVERRIDE: errno %d, want EACCES", r.Op, r.Path, r.Errno)
		}
	}
}

// TestUnknownCapability: a spec naming an unknown capability fails
// before anything runs, naming it.
func TestUnknownCapability(t *testing.T) {
	spec := Launch{Path: "/bin/true", Args: []string{"true"}, DropCapabilities: true, Capabilities: []string{"CAP_NOPE"}}
	res := runChild(t, spec, nil)
	var ie *InitError
	if !errors.As(res.err, &ie) || ie.Stage != StageSpec || !strings.Contains(ie.Msg, `"CAP_NOPE"`) {
		t.Fatalf("err %v, want a spec error naming CAP_NOPE", res.err)
	}
}
