package sandbox

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestParseCapabilities(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  []int
		err   string
	}{
		{nil, nil, ""},
		{[]string{"CAP_FOWNER", "CAP_CHOWN", "CAP_FOWNER"}, []int{0, 3}, ""},
		{[]string{"CAP_CHECKPOINT_RESTORE"}, []int{40}, ""},
		{[]string{"CAP_CHOWN", "cap_chown", "CAP_NOPE"}, nil, `unknown capabilities "cap_chown", "CAP_NOPE"`},
	} {
		got, err := ParseCapabilities(c.names)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("ParseCapabilities(%q): err %v, want %q", c.names, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseCapabilities(%q) = %v, %v; want %v", c.names, got, err, c.want)
		}
	}
	if len(capabilityNumbers) != lastCap()+1 && lastCap() == 40 {
		t.Errorf("capabilityNumbers has %d names, the kernel %d capabilities", len(capabilityNumbers), lastCap()+1)
	}
}

func TestHeldCapabilities(t *testing.T) {
	if got := HeldCapabilities(nil); len(got) != 0 {
		t.Errorf("HeldCapabilities(nil) = %v, want none (uid 0 included)", got)
	}
	got := HeldCapabilities([]string{"CAP_CHOWN", "CAP_NOPE"})
	if !reflect.DeepEqual(got, map[string]bool{"CAP_CHOWN": true}) {
		t.Errorf("HeldCapabilities = %v", got)
	}
}

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
// capabilities it was granted, in every set, and each granted one works
// where the same operation is refused without it.
func TestConfinedRootCapabilities(t *testing.T) {
	requireRoot(t, "capabilities of a uid-0 tree")
	requireLandlock(t, 1)
	for _, c := range []struct {
		cap  string
		ops  func(f escapeFixture) []probeOp
		prep func(*testing.T, escapeFixture, *escapeWorld, *Spec) func()
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
			filter, err := CompileProfile(DefaultProfile(), CompileOptions{Capabilities: HeldCapabilities(nil)})
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
				want = 1 << uint(capabilityNumbers[c.cap])
			}
			ops := []probeOp{op("read", "/proc/self/status"), op("securebits", "")}
			if c.ops != nil {
				ops = append(ops, c.ops(f)...)
			}
			res, cr := probe(t, spec, ops, nil)
			if len(res) != len(ops) {
				t.Fatalf("%s: probe gave %v (%+v)", name, res, cr)
			}
			wantHex := fmt.Sprintf("%016x", want)
			for _, set := range []string{"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"} {
				if got := capLines(res[0].Out)[set]; got != wantHex {
					t.Errorf("%s: %s = %s, want %s", name, set, got, wantHex)
				}
			}
			if res[1].Out != fmt.Sprint(confinedSecurebits) {
				t.Errorf("%s: securebits %s, want %d (NOROOT, NO_SETUID_FIXUP, locked)", name, res[1].Out, confinedSecurebits)
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

// TestUnknownCapability: a spec naming an unknown capability fails
// before anything runs, naming it.
func TestUnknownCapability(t *testing.T) {
	spec := Spec{Path: "/bin/true", Args: []string{"true"}, DropCapabilities: true, Capabilities: []string{"CAP_NOPE"}}
	res := runChild(t, spec, nil)
	var ie *InitError
	if !errors.As(res.err, &ie) || ie.Stage != StageSpec || !strings.Contains(ie.Msg, `"CAP_NOPE"`) {
		t.Fatalf("err %v, want a spec error naming CAP_NOPE", res.err)
	}
}
