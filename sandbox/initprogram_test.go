package sandbox

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/policy"
)

func TestHelperModeOK(t *testing.T) {
	const self = 1000
	tests := []struct {
		name      string
		mode, uid uint32
		want      bool
	}{
		{"root-owned 0755", unix.S_IFREG | 0o755, 0, true},
		{"owned like self 0700", unix.S_IFREG | 0o700, self, true},
		{"owned like self 0555", unix.S_IFREG | 0o555, self, true},
		{"another user's", unix.S_IFREG | 0o755, 1001, false},
		{"group-writable", unix.S_IFREG | 0o775, 0, false},
		{"world-writable", unix.S_IFREG | 0o757, 0, false},
		{"not executable by its owner", unix.S_IFREG | 0o644, 0, false},
		{"a directory", unix.S_IFDIR | 0o755, 0, false},
		{"a fifo", unix.S_IFIFO | 0o755, 0, false},
		{"setuid but otherwise fine", unix.S_IFREG | 0o4755, 0, true},
	}
	for _, tc := range tests {
		if got := helperModeOK(tc.mode, tc.uid, self); got != tc.want {
			t.Errorf("%s: helperModeOK(%o, %d) = %v, want %v", tc.name, tc.mode, tc.uid, got, tc.want)
		}
	}
}

// TestInitProgram: the helper next to the binary is used only when it
// is as hard to replace as the binary itself.
func TestInitProgram(t *testing.T) {
	requireRoot(t, "chown the helper to another user")
	dir := t.TempDir()
	self := filepath.Join(dir, "authbench")
	helper := filepath.Join(dir, InitBinaryName)
	if err := os.WriteFile(self, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := InitProgram(self); got != self {
		t.Errorf("no helper: InitProgram = %s, want %s", got, self)
	}
	if err := os.WriteFile(helper, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := InitProgram(self); got != helper {
		t.Errorf("helper 0755 root: InitProgram = %s, want %s", got, helper)
	}
	for _, step := range []struct {
		name string
		do   func() error
	}{
		{"group-writable", func() error { return os.Chmod(helper, 0o775) }},
		{"owned by another user", func() error {
			if err := os.Chmod(helper, 0o755); err != nil {
				return err
			}
			return os.Chown(helper, 12345, 12345)
		}},
		{"a symlink to a world-writable file", func() error {
			target := filepath.Join(dir, "target")
			if err := os.WriteFile(target, []byte("#!/bin/sh\n"), 0o777); err != nil {
				return err
			}
			if err := os.Chmod(target, 0o777); err != nil {
				return err
			}
			if err := os.Remove(helper); err != nil {
				return err
			}
			return os.Symlink(target, helper)
		}},
	} {
		if err := step.do(); err != nil {
			t.Fatal(err)
		}
		if got := InitProgram(self); got != self {
			t.Errorf("helper %s: InitProgram = %s, want %s", step.name, got, self)
		}
	}
}

// TestStartUsesHelper: Start runs the helper next to the binary, not the
// binary. Here the "binary" is a script that would fail every run, and
// the helper is this test binary (which serves InitCommand).
func TestStartUsesHelper(t *testing.T) {
	dir := fixtureDir(t)
	self := filepath.Join(dir, "authbench")
	if err := os.WriteFile(self, []byte("#!/bin/sh\nexit 99\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(testBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, InitBinaryName), data, 0o755); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	child, err := Start(self, Launch{Path: "/bin/echo", Args: []string{"echo", "from the helper"}, Env: os.Environ()}, nil, &out, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Release(); err != nil {
		t.Fatalf("release: %v", err)
	}
	status, err := child.Wait()
	if err != nil || status != 0 {
		t.Fatalf("status %d, %v (99: the binary ran instead of the helper)", status, err)
	}
	if got := strings.TrimSpace(out.String()); got != "from the helper" {
		t.Errorf("output %q", got)
	}
}

// TestDecodeSpecUnknownField: a spec with a field this sandbox-init does
// not know (a newer launcher asking for a restriction) is refused, not
// run without it.
func TestDecodeSpecUnknownField(t *testing.T) {
	tests := []struct {
		doc     string
		wantErr string
	}{
		{`{"path":"/bin/true","args":["true"],"env":[]}`, ""},
		{`{"path":"/bin/true","args":["true"],"env":[],"no_new_privs":true,"close_fds":true}`, ""},
		{`{"path":"/bin/true","args":["true"],"env":[],"future_restriction":true}`, `unknown field "future_restriction"`},
		{`{"path":"/bin/true","seccomp":{"profile":"x","arch":"amd64","flags":1,"program":"","extra":1}}`, `unknown field "extra"`},
		{`{"path":"/bin/true","seccomp":{"profile":"x","arch":"amd64","flags":1,"program":"AAAA"}}`, "not a whole number of instructions"},
		{`{"path":`, "unexpected EOF"},
	}
	for _, tc := range tests {
		spec, err := decodeSpec(strings.NewReader(tc.doc))
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tc.doc, err)
		case tc.wantErr == "" && spec.Path != "/bin/true":
			t.Errorf("%s: path %q", tc.doc, spec.Path)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: error %v, want %q", tc.doc, err, tc.wantErr)
		}
	}
}

// TestSpecRoundTrip: everything a launcher sends decodes strictly (no
// field of Launch, a Plan or a Filter marshals under a name that the
// strict decoder would refuse).
func TestSpecRoundTrip(t *testing.T) {
	f, err := DefaultFilter()
	if err != nil {
		t.Fatal(err)
	}
	uid, gid := 65534, 65534
	plan := hostPlan(t, `{"read":["/etc/**"],"write":["/tmp/**"],"execute":["/bin/true"]}`, policy.DefaultBaseline())
	spec := Launch{Path: "true", Args: []string{"true"}, Env: []string{"A=b"}, Dir: "/", HidePaths: []string{"/run/x.sock"},
		AllowUnenforced: true, LandlockABI: 3, Capabilities: []string{"CAP_CHOWN"}, UID: &uid, GID: &gid, Groups: []int{1, 2},
		WaitTree: true, ReportExit: true}.Confined(plan, f)
	data, err := json.Marshal(spec) // as Gate.Release sends it
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeSpec(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("a spec this launcher sends is refused: %v", err)
	}
	if got.Plan == nil || got.Seccomp == nil || len(got.Seccomp.Program) != len(f.Program) || *got.UID != uid {
		t.Errorf("round trip lost fields: %+v", got)
	}
}

// TestSpecWire: what goes through the gate keeps every rule's path,
// kind, rights and run-time flag, drops the rest of the plan, and leaves
// the launcher's spec as it was.
func TestSpecWire(t *testing.T) {
	plan := hostPlan(t, `{"read":["/etc/**","/usr/bin","/no/such/file"],"write":["/tmp/x/new"],"execute":["/bin/true"]}`, policy.DefaultBaseline())
	if len(plan.Wider) == 0 || len(plan.Warnings) == 0 {
		t.Fatalf("fixture: the plan should have widenings and warnings: %d, %d", len(plan.Wider), len(plan.Warnings))
	}
	plan.Rules[0].Runtime = true
	spec := Launch{Path: "/bin/true"}.Confined(plan, nil)
	w := spec.wire()
	if w.Plan == plan || len(w.Plan.Rules) != len(plan.Rules) {
		t.Fatalf("wire plan = %+v", w.Plan)
	}
	for i, r := range w.Plan.Rules {
		o := plan.Rules[i]
		if r.Path != o.Path || r.Dir != o.Dir || r.Access != o.Access || r.Runtime != o.Runtime || r.From != nil {
			t.Errorf("rule %d: sent %+v, planned %+v", i, r, o)
		}
		if len(o.From) == 0 {
			t.Errorf("rule %d: the launcher's plan lost its sources", i)
		}
	}
	if w.Plan.Wider != nil || w.Plan.Warnings != nil || w.Plan.Root != plan.Root || w.Plan.Semantics != plan.Semantics {
		t.Errorf("wire plan header = %+v", w.Plan)
	}
	if (Launch{Path: "/bin/true"}).wire().Plan != nil {
		t.Error("a spec without a plan gained one")
	}
	data, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeSpec(bytes.NewReader(data))
	if err != nil || len(got.Plan.Rules) != len(plan.Rules) || got.Plan.Rules[0].Access != plan.Rules[0].Access {
		t.Fatalf("decoded %+v, %v", got, err)
	}
}

// TestFilterJSONRoundTrip: a filter reads back exactly, whatever the
// values of its instructions, and its program travels as base64.
func TestFilterJSONRoundTrip(t *testing.T) {
	def, err := DefaultFilter()
	if err != nil {
		t.Fatal(err)
	}
	odd := &Filter{Profile: "odd", Arch: "arm64", Flags: 3, Skipped: []string{"x"},
		Program: [][4]uint32{{0, 0, 0, 0}, {0xffff, 300, 0x1ffff, 0xffffffff}, {6, 1, 2, 3}}}
	for _, f := range []*Filter{def, odd, {Profile: "empty"}} {
		data, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), `"program":[`) {
			t.Errorf("%s: program as JSON numbers: %.80s", f.Profile, data)
		}
		var back Filter
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatalf("%s: %v", f.Profile, err)
		}
		if len(f.Program) == 0 && len(back.Program) == 0 {
			back.Program = f.Program
		}
		if !reflect.DeepEqual(&back, f) {
			t.Errorf("%s: read back %+v, want %+v", f.Profile, back, *f)
		}
	}
}
