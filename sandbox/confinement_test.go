package sandbox

import (
	"reflect"
	"strings"
	"testing"

	"github.com/authbench/authbench/policy"
)

// TestNewConfinement: each option sets its mechanism, options compose,
// and the command is filled in by Confine (pure assembly, no kernel).
func TestNewConfinement(t *testing.T) {
	root, err := policy.NewRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pol, err := policy.ParsePolicy([]byte(`{"read": ["/**"], "write": ["/tmp/**"], "execute": ["/usr/bin/**"]}`), "test")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := policy.CompilePlan(pol, policy.DefaultBaseline(), root)
	if err != nil {
		t.Fatal(err)
	}
	filter, err := DefaultFilter()
	if err != nil {
		t.Fatal(err)
	}
	uid, gid := 1000, 1001
	cmd := Command{Path: "sh", Args: []string{"sh", "-c", "true"}, Env: []string{"A=1"}, Dir: "/w"}
	withCmd := func(s Launch) Launch { s.Path, s.Args, s.Env, s.Dir = cmd.Path, cmd.Args, cmd.Env, cmd.Dir; return s }
	for _, tc := range []struct {
		name string
		opts []Option
		want Launch
	}{
		{"nothing", nil, Launch{}},
		{"exec's confinement", []Option{Confined(plan, filter)},
			Launch{Plan: plan, Seccomp: filter, CloseFDs: true, DropCapabilities: true, NoNewPrivs: true}},
		{"exec's without a plan or filter", []Option{Confined(nil, nil)},
			Launch{CloseFDs: true, DropCapabilities: true, NoNewPrivs: true}},
		{"a daemon run", []Option{AllowUnenforced(true), Identity(uid, gid), WaitTree(true), HidePaths("/a", "/b"),
			Capabilities("CAP_CHOWN"), RefuseUnixConnect(true), Confined(plan, filter)},
			Launch{Plan: plan, Seccomp: filter, CloseFDs: true, DropCapabilities: true, NoNewPrivs: true, AllowUnenforced: true,
				UID: &uid, GID: &gid, WaitTree: true, HidePaths: []string{"/a", "/b"}, Capabilities: []string{"CAP_CHOWN"},
				RefuseUnixConnect: true}},
		{"a verifier", []Option{CloseInheritedFDs(), Capabilities("CAP_NET_RAW", "CAP_CHOWN"), Capabilities("CAP_CHOWN")},
			Launch{CloseFDs: true, DropCapabilities: true, Capabilities: []string{"CAP_NET_RAW", "CAP_CHOWN"}}},
		{"an agent with groups", []Option{Identity(uid, gid, 5, 6), Landlock(plan), LandlockABI(3)},
			Launch{UID: &uid, GID: &gid, Groups: []int{5, 6}, Plan: plan, LandlockABI: 3, NoNewPrivs: true}},
		{"a filter alone sets no_new_privs", []Option{Seccomp(filter)}, Launch{Seccomp: filter, NoNewPrivs: true}},
		{"a kept tree", []Option{ReportExit()}, Launch{WaitTree: true, ReportExit: true}},
		{"the plan compiled here", []Option{LandlockPolicy(pol, policy.DefaultBaseline(), root)}, Launch{Plan: plan, NoNewPrivs: true}},
		{"the last identity wins", []Option{Identity(0, 0, 9), Identity(uid, gid)}, Launch{UID: &uid, GID: &gid, Groups: []int{}}},
	} {
		c, err := NewConfinement(tc.opts...)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		got := c.Confine(cmd)
		want := withCmd(tc.want)
		if len(want.Groups) == 0 && len(got.Groups) == 0 {
			got.Groups, want.Groups = nil, nil
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, want)
		}
	}
}

// TestNewConfinementRefuses: options that do not fit are refused with
// the reason.
func TestNewConfinementRefuses(t *testing.T) {
	notifying, err := DefaultFilter()
	if err != nil {
		t.Fatal(err)
	}
	if !notifying.Notifies() {
		t.Fatal("the default filter does not hand openat2 to the agent; the test proves nothing")
	}
	for _, tc := range []struct {
		name string
		opts []Option
		err  string
	}{
		{"an ABI cap without a plan", []Option{LandlockABI(2)}, "needs a Landlock plan"},
		{"a negative ABI", []Option{LandlockABI(-1)}, "landlock ABI -1"},
		{"a negative identity", []Option{Identity(-1, 0)}, "identity -1:0"},
		{"no profile", []Option{SeccompProfile(nil)}, "nil"},
		{"an agent the filter needs left out", []Option{Seccomp(notifying), WithoutOpenat2Agent()}, "openat2 agent"},
		{"a profile that does not compile", []Option{SeccompProfile(&Profile{Source: "bad", DefaultAction: "SCMP_ACT_NOPE"})}, "bad"},
	} {
		_, err := NewConfinement(tc.opts...)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: %v; want an error with %q", tc.name, err, tc.err)
		}
	}
}

// TestConfinementOpenat2Agent: a profile that notifies openat2 brings the
// agent; WithoutOpenat2Agent, before or after the profile, leaves it out
// (openat2 answers ENOSYS) and leaves the profile itself unchanged.
func TestConfinementOpenat2Agent(t *testing.T) {
	p := ContainerProfile()
	before := len(p.Syscalls)
	for _, tc := range []struct {
		name  string
		opts  []Option
		agent bool
	}{
		{"the profile's agent", []Option{SeccompProfile(p)}, true},
		{"left out after", []Option{SeccompProfile(p), WithoutOpenat2Agent()}, false},
		{"left out before", []Option{WithoutOpenat2Agent(), SeccompProfile(p)}, false},
	} {
		c, err := NewConfinement(tc.opts...)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		s := c.Confine(Command{})
		if s.Seccomp == nil || s.Seccomp.Notifies() != tc.agent || !s.NoNewPrivs {
			t.Errorf("%s: filter %v, agent %v; want agent %v", tc.name, s.Seccomp != nil, s.Seccomp != nil && s.Seccomp.Notifies(), tc.agent)
		}
	}
	if len(p.Syscalls) != before {
		t.Error("the profile was changed")
	}
	for _, r := range p.Syscalls {
		if r.Action == "SCMP_ACT_NOTIFY" {
			return
		}
	}
	t.Error("WithoutOpenat2Agent changed the caller's profile")
}

// TestConfinementSpecsShareNothing: two specs of one Confinement do not
// share slices or identity pointers.
func TestConfinementSpecsShareNothing(t *testing.T) {
	c, err := NewConfinement(Capabilities("CAP_CHOWN"), HidePaths("/x"), Identity(1, 2, 3))
	if err != nil {
		t.Fatal(err)
	}
	a, b := c.Confine(Command{}), c.Confine(Command{})
	a.Capabilities[0], a.HidePaths[0], a.Groups[0], *a.UID = "CAP_SYS_ADMIN", "/", 0, 0
	if b.Capabilities[0] != "CAP_CHOWN" || b.HidePaths[0] != "/x" || b.Groups[0] != 3 || *b.UID != 1 {
		t.Errorf("a change to one spec reached the other: %+v", b)
	}
}
