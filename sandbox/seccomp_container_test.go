package sandbox

import (
	"testing"

	specs "github.com/opencontainers/runtime-spec/specs-go"
)

func TestIsSetIDRefusal(t *testing.T) {
	mode := func(idx uint, bit uint64) specs.LinuxSeccompArg {
		return specs.LinuxSeccompArg{Index: idx, Value: bit, ValueTwo: bit, Op: specs.OpMaskedEqual}
	}
	oCreat := specs.LinuxSeccompArg{Index: 2, Value: 0o100, ValueTwo: 0o100, Op: specs.OpMaskedEqual}
	tests := []struct {
		name string
		rule SyscallRule
		call string
		want bool
	}{
		{"chmod S_ISUID", SyscallRule{Action: specs.ActErrno, Args: []specs.LinuxSeccompArg{mode(1, 0o4000)}}, "chmod", true},
		{"fchmodat S_ISGID", SyscallRule{Action: specs.ActErrno, Args: []specs.LinuxSeccompArg{mode(2, 0o2000)}}, "fchmodat", true},
		{"openat O_CREAT + S_ISUID", SyscallRule{Action: specs.ActErrno, Args: []specs.LinuxSeccompArg{oCreat, mode(3, 0o4000)}}, "openat", true},
		{"mknod keeps its refusal", SyscallRule{Action: specs.ActErrno, Args: []specs.LinuxSeccompArg{mode(1, 0o4000)}}, "mknod", false},
		{"open O_NONBLOCK (04000) in the flags is no mode", SyscallRule{Action: specs.ActErrno, Args: []specs.LinuxSeccompArg{mode(1, 0o4000)}}, "open", false},
		{"fchmodat dirfd argument", SyscallRule{Action: specs.ActErrno, Args: []specs.LinuxSeccompArg{mode(1, 0o4000)}}, "fchmodat", false},
		{"allow rule", SyscallRule{Action: specs.ActAllow, Args: []specs.LinuxSeccompArg{mode(1, 0o4000)}}, "chmod", false},
		{"unconditional refusal", SyscallRule{Action: specs.ActErrno}, "chmod", false},
		{"other bit", SyscallRule{Action: specs.ActErrno, Args: []specs.LinuxSeccompArg{mode(1, 0o1000)}}, "chmod", false},
		{"not masked-equal", SyscallRule{Action: specs.ActErrno, Args: []specs.LinuxSeccompArg{{Index: 1, Value: 0o4000, Op: specs.OpGreaterEqual}}}, "chmod", false},
		{"mask differs from value", SyscallRule{Action: specs.ActErrno, Args: []specs.LinuxSeccompArg{{Index: 1, Value: 0o4000, ValueTwo: 0, Op: specs.OpMaskedEqual}}}, "chmod", false},
	}
	for _, tc := range tests {
		if got := IsSetIDRefusal(tc.rule, tc.call); got != tc.want {
			t.Errorf("%s: IsSetIDRefusal = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestContainerProfileDecisions: the container profile lets chmod,
// fchmodat, creat and open/openat set S_ISUID and S_ISGID, where the
// default profile refuses them, and decides everything else as the
// default profile does (mknod's set-ID refusal, O_TRUNC on a read-only
// open, openat2, mount ...).
func TestContainerProfileDecisions(t *testing.T) {
	for _, arch := range []string{"amd64", "arm64"} {
		a, _ := lookupArch(arch)
		def := compileDefault(t, arch)
		ctr, err := CompileProfile(ContainerProfile(), CompileOptions{Arch: arch, KernelRelease: "6.18.0"})
		if err != nil {
			t.Fatal(err)
		}
		const errnoEACCES = retErrno | 13
		const oCreat, oTrunc = 0o100, 0o1000
		tests := []struct {
			name      string
			args      []uint64
			def, ctnr uint32
		}{
			{"fchmod", []uint64{3, 0o6755}, errnoEPERM, retAllow},
			{"fchmod", []uint64{3, 0o755}, retAllow, retAllow},
			{"fchmodat", []uint64{0, 0, 0o2775}, errnoEPERM, retAllow},
			{"fchmodat2", []uint64{0, 0, 0o4755, 0}, errnoEPERM, retAllow},
			{"openat", []uint64{0, 0, oCreat | 1, 0o4755}, errnoEPERM, retAllow},
			{"openat", []uint64{0, 0, 0o20200000 | 1, 0o2755}, errnoEPERM, retAllow}, // O_TMPFILE
			{"openat", []uint64{0, 0, oTrunc, 0}, errnoEACCES, errnoEACCES},
			{"mknodat", []uint64{0, 0, 0o104755, 0}, errnoEPERM, errnoEPERM},
			{"openat2", nil, retUserNotif, retUserNotif},
			{"mount", nil, errnoEPERM, errnoEPERM},
			// Syscalls arm64 does not have.
			{"chmod", []uint64{0, 0o4755}, errnoEPERM, retAllow},
			{"chmod", []uint64{0, 0o2775}, errnoEPERM, retAllow},
			{"creat", []uint64{0, 0o4755}, errnoEPERM, retAllow},
			{"open", []uint64{0, oCreat | 1, 0o4755}, errnoEPERM, retAllow},
			{"mknod", []uint64{0, 0o102755, 0}, errnoEPERM, errnoEPERM},
		}
		for _, tc := range tests {
			nr, ok := a.numbers()[tc.name]
			if !ok && arch == "amd64" {
				t.Fatalf("%s: no syscall %s", arch, tc.name)
			}
			if !ok {
				continue
			}
			if got := runFilter(t, def, a.auditArch, uint32(nr), tc.args...); got != tc.def {
				t.Errorf("%s default %s%o = %#x, want %#x", arch, tc.name, tc.args, got, tc.def)
			}
			if got := runFilter(t, ctr, a.auditArch, uint32(nr), tc.args...); got != tc.ctnr {
				t.Errorf("%s container %s%o = %#x, want %#x", arch, tc.name, tc.args, got, tc.ctnr)
			}
		}
		// Without arguments no set-ID test matches: every syscall is
		// decided as by the default profile.
		for name, nr := range a.numbers() {
			if d, c := runFilter(t, def, a.auditArch, uint32(nr)), runFilter(t, ctr, a.auditArch, uint32(nr)); d != c {
				t.Errorf("%s %s: container %#x, default %#x", arch, name, c, d)
			}
		}
	}
	f, err := ContainerFilter()
	if err != nil {
		t.Fatal(err)
	}
	f.Program[0][3] = 0xdead // a caller's copy
	if g, _ := ContainerFilter(); g.Program[0][3] == 0xdead || g.Profile != "container" {
		t.Errorf("ContainerFilter shares its program or names %q", g.Profile)
	}
}
