package sandbox

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// runFilter evaluates f in a BPF interpreter for one syscall. The
// interpreter loads words big-endian, so each 32-bit field of
// seccomp_data is stored that way; the filter's offsets are the kernel's.
func runFilter(t *testing.T, f *Filter, audit uint32, nr uint32, args ...uint64) uint32 {
	t.Helper()
	var a [6]uint64
	copy(a[:], args)
	out, err := evalProgram(f.Program, audit, nr, a)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

const (
	auditAmd64 = 0xc000003e
	errnoEPERM = retErrno | 1
	errnoNOSYS = retErrno | 38
)

func compileDefault(t *testing.T, arch string) *Filter {
	t.Helper()
	f, err := CompileProfile(DefaultProfile(), CompileOptions{Arch: arch, KernelRelease: "6.18.0"})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestDefaultProfileDecisions(t *testing.T) {
	f := compileDefault(t, "amd64")
	nr := func(name string) uint32 {
		n, ok := syscallNumbersAmd64()[name]
		if !ok {
			t.Fatalf("no syscall %s", name)
		}
		return uint32(n)
	}
	tests := []struct {
		name string
		args []uint64
		want uint32
	}{
		{"read", nil, retAllow},
		{"openat", nil, retAllow},
		{"execve", nil, retAllow},
		{"landlock_restrict_self", nil, retAllow},
		{"mount", nil, errnoEPERM},
		{"umount2", nil, errnoEPERM},
		{"pivot_root", nil, errnoEPERM},
		{"chroot", nil, errnoEPERM},
		{"ptrace", nil, errnoEPERM},
		{"process_vm_readv", nil, errnoEPERM},
		{"process_vm_writev", nil, errnoEPERM},
		{"bpf", nil, errnoEPERM},
		{"perf_event_open", nil, errnoEPERM},
		{"kexec_load", nil, errnoEPERM},
		{"kexec_file_load", nil, errnoEPERM},
		{"init_module", nil, errnoEPERM},
		{"finit_module", nil, errnoEPERM},
		{"delete_module", nil, errnoEPERM},
		{"keyctl", nil, errnoEPERM},
		{"add_key", nil, errnoEPERM},
		{"request_key", nil, errnoEPERM},
		{"userfaultfd", nil, errnoEPERM},
		{"open_by_handle_at", nil, errnoEPERM},
		{"name_to_handle_at", nil, errnoEPERM},
		{"io_uring_setup", nil, errnoEPERM},
		{"io_uring_enter", nil, errnoEPERM},
		{"io_uring_register", nil, errnoEPERM},
		{"setns", nil, errnoEPERM},
		{"fsopen", nil, errnoEPERM},
		{"open_tree", nil, errnoEPERM},
		{"move_mount", nil, errnoEPERM},
		{"modify_ldt", nil, errnoNOSYS}, // unlisted
		{"clone3", nil, errnoNOSYS},
		{"clone", []uint64{0x01200011}, retAllow},               // fork: CLONE_CHILD_SETTID|CLEARTID|SIGCHLD
		{"clone", []uint64{0x10000000 | 17}, errnoEPERM},        // CLONE_NEWUSER
		{"clone", []uint64{0x00020000}, errnoEPERM},             // CLONE_NEWNS
		{"unshare", []uint64{0x00000400}, retAllow},             // CLONE_FILES
		{"unshare", []uint64{0x10000000 | 0x20000}, errnoEPERM}, // user+mount
		{"unshare", []uint64{0x80}, errnoEPERM},                 // CLONE_NEWTIME
		{"ioctl", []uint64{0, 0x5401}, retAllow},                // TCGETS
		{"ioctl", []uint64{0, 0x5412}, errnoEPERM},              // TIOCSTI
		{"ioctl", []uint64{0, 0xffffffff00005412}, errnoEPERM},  // TIOCSTI with junk in the high bits
		{"ioctl", []uint64{0, 0x541c}, errnoEPERM},              // TIOCLINUX
		{"memfd_create", []uint64{0, 0x1}, errnoNOSYS},          // MFD_CLOEXEC
		{"memfd_create", []uint64{0, 0x9}, retAllow},            // MFD_CLOEXEC|MFD_NOEXEC_SEAL
		{"prlimit64", []uint64{0}, retAllow},
		{"prlimit64", []uint64{1}, errnoEPERM},
	}
	for _, tc := range tests {
		if got := runFilter(t, f, auditAmd64, nr(tc.name), tc.args...); got != tc.want {
			t.Errorf("%s%x = %#x, want %#x", tc.name, tc.args, got, tc.want)
		}
	}
	// Other ABIs of the machine are refused outright.
	if got := runFilter(t, f, 0x40000003, 0); got != retKillProcess {
		t.Errorf("i386 read = %#x, want kill", got)
	}
	if got := runFilter(t, f, auditAmd64, 0x40000000|nr("mount")); got != retKillProcess {
		t.Errorf("x32 mount = %#x, want kill", got)
	}
	if got := runFilter(t, f, auditAmd64, 5000); got != errnoNOSYS {
		t.Errorf("unknown syscall 5000 = %#x, want ENOSYS", got)
	}
}

// TestEveryNumberDecided compares the binary search with a direct
// evaluation of the profile for every syscall number.
func TestEveryNumberDecided(t *testing.T) {
	for _, arch := range []string{"amd64", "arm64"} {
		f := compileDefault(t, arch)
		a, _ := lookupArch(arch)
		byNr := map[int]string{}
		for n, nr := range a.numbers() {
			byNr[nr] = n
		}
		allowed := map[string]bool{}
		for _, r := range DefaultProfile().Syscalls {
			if r.Action == specs.ActAllow && len(r.Args) == 0 {
				for _, n := range r.Names {
					allowed[n] = true
				}
			}
		}
		for nr := 0; nr < 600; nr++ {
			got := runFilter(t, f, a.auditArch, uint32(nr))
			name, known := byNr[nr]
			if allowed[name] && got != retAllow {
				t.Errorf("%s: %s (%d) = %#x, want allow", arch, name, nr, got)
			}
			if !known && got != errnoNOSYS {
				t.Errorf("%s: unassigned %d = %#x, want ENOSYS", arch, nr, got)
			}
		}
	}
}

func TestArgumentOperators(t *testing.T) {
	u := func(v uint) *uint { return &v }
	prof := &Profile{Source: "ops", DefaultAction: specs.ActAllow, Syscalls: []SyscallRule{
		{Names: []string{"read"}, Action: specs.ActErrno, ErrnoRet: u(10), Args: []specs.LinuxSeccompArg{{Index: 0, Value: 1 << 33, Op: specs.OpGreaterThan}}},
		{Names: []string{"write"}, Action: specs.ActErrno, ErrnoRet: u(11), Args: []specs.LinuxSeccompArg{{Index: 2, Value: 5, Op: specs.OpLessEqual}}},
		{Names: []string{"close"}, Action: specs.ActErrno, ErrnoRet: u(12), Args: []specs.LinuxSeccompArg{{Index: 0, Value: 3, Op: specs.OpNotEqual}}},
		{Names: []string{"dup"}, Action: specs.ActErrno, ErrnoRet: u(13), Args: []specs.LinuxSeccompArg{{Index: 0, Value: 1 << 32, Op: specs.OpLessThan}}},
		{Names: []string{"pipe"}, Action: specs.ActErrno, ErrnoRet: u(14), Args: []specs.LinuxSeccompArg{{Index: 0, Value: 7, Op: specs.OpGreaterEqual}}},
		// the same index twice: ORed, as runc does
		{Names: []string{"kill"}, Action: specs.ActErrno, ErrnoRet: u(15), Args: []specs.LinuxSeccompArg{
			{Index: 1, Value: 9, Op: specs.OpEqualTo}, {Index: 1, Value: 15, Op: specs.OpEqualTo}}},
		// different indexes: ANDed
		{Names: []string{"lseek"}, Action: specs.ActErrno, ErrnoRet: u(16), Args: []specs.LinuxSeccompArg{
			{Index: 0, Value: 1, Op: specs.OpEqualTo}, {Index: 2, Value: 2, Op: specs.OpEqualTo}}},
	}}
	f, err := CompileProfile(prof, CompileOptions{Arch: "amd64", KernelRelease: "6.1"})
	if err != nil {
		t.Fatal(err)
	}
	e := func(n uint32) uint32 { return retErrno | n }
	tests := []struct {
		nr   int
		args []uint64
		want uint32
	}{
		{0, []uint64{1 << 33}, retAllow}, {0, []uint64{1<<33 + 1}, e(10)}, {0, []uint64{1 << 34}, e(10)}, {0, []uint64{5}, retAllow},
		{1, []uint64{0, 0, 5}, e(11)}, {1, []uint64{0, 0, 6}, retAllow}, {1, []uint64{0, 0, 1 << 32}, retAllow}, {1, []uint64{0, 0, 0}, e(11)},
		{3, []uint64{3}, retAllow}, {3, []uint64{4}, e(12)}, {3, []uint64{3 | 1<<40}, e(12)},
		{32, []uint64{1<<32 - 1}, e(13)}, {32, []uint64{1 << 32}, retAllow},
		{22, []uint64{7}, e(14)}, {22, []uint64{6}, retAllow}, {22, []uint64{1 << 32}, e(14)},
		{62, []uint64{0, 9}, e(15)}, {62, []uint64{0, 15}, e(15)}, {62, []uint64{0, 2}, retAllow},
		{8, []uint64{1, 0, 2}, e(16)}, {8, []uint64{1, 0, 3}, retAllow}, {8, []uint64{2, 0, 2}, retAllow},
	}
	for _, tc := range tests {
		if got := runFilter(t, f, auditAmd64, uint32(tc.nr), tc.args...); got != tc.want {
			t.Errorf("syscall %d %x = %#x, want %#x", tc.nr, tc.args, got, tc.want)
		}
	}
}

func TestUnknownSyscallNamesAreNamed(t *testing.T) {
	prof, err := ParseProfile([]byte(`{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[
		{"names":["mount","mountt","chown32","frobnicate"],"action":"SCMP_ACT_ERRNO"}]}`), "bad.json")
	if err != nil {
		t.Fatal(err)
	}
	_, err = CompileProfile(prof, CompileOptions{Arch: "amd64"})
	var ue *UnknownSyscallsError
	if !errors.As(err, &ue) {
		t.Fatalf("err = %v, want UnknownSyscallsError", err)
	}
	if got := strings.Join(ue.Names, ","); got != "frobnicate,mountt" {
		t.Errorf("names = %s (chown32 is a 32-bit x86 call: skipped, not unknown)", got)
	}
	if !strings.Contains(err.Error(), "bad.json") || !strings.Contains(err.Error(), "frobnicate") {
		t.Errorf("message = %q", err)
	}
}

func TestProfileErrors(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"misspelt key", `{"defaultAcion":"SCMP_ACT_ALLOW"}`, "unknown field"},
		{"no default", `{"syscalls":[]}`, "defaultAction is missing"},
		{"bad action", `{"defaultAction":"SCMP_ACT_MAYBE"}`, "unknown action"},
		{"notify", `{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["read"],"action":"SCMP_ACT_NOTIFY"}]}`, "seccomp agent"},
		{"bad op", `{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["read"],"action":"SCMP_ACT_ERRNO","args":[{"index":0,"value":1,"op":"SCMP_CMP_LIKE"}]}]}`, "unknown operator"},
		{"bad index", `{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["read"],"action":"SCMP_ACT_ERRNO","args":[{"index":6,"value":1,"op":"SCMP_CMP_EQ"}]}]}`, "argument index 6"},
		{"other arch only", `{"defaultAction":"SCMP_ACT_ALLOW","architectures":["SCMP_ARCH_PPC64LE"]}`, "does not cover this architecture"},
		{"conflict", `{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["read"],"action":"SCMP_ACT_ERRNO"},{"names":["read"],"action":"SCMP_ACT_KILL"}]}`, "different actions"},
		{"bad flag", `{"defaultAction":"SCMP_ACT_ALLOW","flags":["SECCOMP_FILTER_FLAG_NEW_LISTENER"]}`, "not supported"},
		{"empty names", `{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":[],"action":"SCMP_ACT_ALLOW"}]}`, "names no syscall"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prof, err := ParseProfile([]byte(tc.doc), tc.name)
			if err == nil {
				_, err = CompileProfile(prof, CompileOptions{Arch: "amd64"})
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestDockerExtensions: includes/excludes by architecture, capability
// and kernel version, and the archMap of Docker profile files.
func TestDockerExtensions(t *testing.T) {
	doc := `{"defaultAction":"SCMP_ACT_ERRNO","defaultErrnoRet":1,
	  "archMap":[{"architecture":"SCMP_ARCH_X86_64","subArchitectures":["SCMP_ARCH_X86","SCMP_ARCH_X32"]}],
	  "syscalls":[
	    {"names":["read"],"action":"SCMP_ACT_ALLOW"},
	    {"names":["arch_prctl"],"action":"SCMP_ACT_ALLOW","includes":{"arches":["amd64","x32"]}},
	    {"names":["set_tls"],"action":"SCMP_ACT_ALLOW","includes":{"arches":["arm"]}},
	    {"names":["mount"],"action":"SCMP_ACT_ALLOW","includes":{"caps":["CAP_SYS_ADMIN"]}},
	    {"names":["ptrace"],"action":"SCMP_ACT_ALLOW","includes":{"minKernel":"4.8"}},
	    {"names":["bpf"],"action":"SCMP_ACT_ALLOW","includes":{"minKernel":"7.1"}},
	    {"names":["clone3"],"action":"SCMP_ACT_ERRNO","errnoRet":38,"excludes":{"caps":["CAP_SYS_ADMIN"]}},
	    {"name":"write","action":"SCMP_ACT_ALLOW","comment":"old single-name form"}
	  ]}`
	prof, err := ParseProfile([]byte(doc), "docker.json")
	if err != nil {
		t.Fatal(err)
	}
	nr := func(n string) uint32 { return uint32(syscallNumbersAmd64()[n]) }
	for _, tc := range []struct {
		caps map[string]bool
		call string
		want uint32
	}{
		{nil, "read", retAllow}, {nil, "write", retAllow}, {nil, "arch_prctl", retAllow},
		{nil, "mount", errnoEPERM}, {map[string]bool{"CAP_SYS_ADMIN": true}, "mount", retAllow},
		{nil, "ptrace", retAllow}, {nil, "bpf", errnoEPERM},
		{nil, "clone3", errnoNOSYS}, {map[string]bool{"CAP_SYS_ADMIN": true}, "clone3", errnoEPERM},
	} {
		f, err := CompileProfile(prof, CompileOptions{Arch: "amd64", Capabilities: tc.caps, KernelRelease: "6.18.44-fc"})
		if err != nil {
			t.Fatal(err)
		}
		if got := runFilter(t, f, auditAmd64, nr(tc.call)); got != tc.want {
			t.Errorf("caps %v %s = %#x, want %#x", tc.caps, tc.call, got, tc.want)
		}
	}
}

func TestDefaultProfileShipped(t *testing.T) {
	p := DefaultProfile()
	if p.DefaultAction != specs.ActErrno || p.DefaultErrnoRet == nil || *p.DefaultErrnoRet != 38 {
		t.Errorf("default action %s/%v", p.DefaultAction, p.DefaultErrnoRet)
	}
	for _, arch := range []string{"amd64", "arm64"} {
		f := compileDefault(t, arch)
		if len(f.Skipped) != 0 && arch == "amd64" {
			t.Errorf("%s: skipped %v", arch, f.Skipped)
		}
		if len(f.Program) > 1000 {
			t.Errorf("%s: %d instructions", arch, len(f.Program))
		}
	}
}

// TestDefaultFilterTableIsFresh: the precompiled default filters match a
// compilation of profiles/default.json (run go generate ./sandbox if not).
func TestDefaultFilterTableIsFresh(t *testing.T) {
	for _, arch := range []string{"amd64", "arm64"} {
		f := compileDefault(t, arch)
		if !reflect.DeepEqual(f.Program, defaultFilters[arch]) {
			t.Errorf("%s: seccomp_default_table.go is stale: run go generate ./sandbox", arch)
		}
	}
	f, err := DefaultFilter()
	if err != nil || f.Profile != "default" || f.Flags != filterFlagTSync || len(f.Program) == 0 {
		t.Fatalf("DefaultFilter() = %+v, %v", f, err)
	}
}

// BenchmarkCompileDefaultProfile parses and compiles the default profile
// (what DefaultFilter saves at every start).
func BenchmarkCompileDefaultProfile(b *testing.B) {
	for b.Loop() {
		if _, err := CompileProfile(DefaultProfile(), CompileOptions{KernelRelease: "6.18"}); err != nil {
			b.Fatal(err)
		}
	}
}
