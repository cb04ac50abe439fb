package sandbox

import (
	"testing"

	specs "github.com/opencontainers/runtime-spec/specs-go"
	"golang.org/x/sys/unix"
)

// profileVerdict evaluates profile p for one syscall directly from its
// rules (no BPF): the rules with argument conditions in profile order
// (conditions ANDed, except that conditions repeating an argument index
// are ORed, as runc does), then the unconditional rule, then the default
// action. The profile must have no includes/excludes.
func profileVerdict(t testing.TB, p *Profile, name string, args [6]uint64) uint32 {
	t.Helper()
	action := func(r *SyscallRule) uint32 {
		v, err := actionValue(r.Action, r.ErrnoRet, uint(unix.EPERM))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	holds := func(c specs.LinuxSeccompArg) bool {
		x := args[c.Index]
		switch c.Op {
		case specs.OpEqualTo:
			return x == c.Value
		case specs.OpNotEqual:
			return x != c.Value
		case specs.OpLessThan:
			return x < c.Value
		case specs.OpLessEqual:
			return x <= c.Value
		case specs.OpGreaterThan:
			return x > c.Value
		case specs.OpGreaterEqual:
			return x >= c.Value
		case specs.OpMaskedEqual:
			return x&c.Value == c.ValueTwo
		}
		t.Fatalf("operator %s", c.Op)
		return false
	}
	var uncond *uint32
	for i := range p.Syscalls {
		r := &p.Syscalls[i]
		if r.Includes != nil || r.Excludes != nil {
			t.Fatal("profileVerdict does not evaluate includes/excludes")
		}
		named := false
		for _, n := range r.names() {
			named = named || n == name
		}
		if !named {
			continue
		}
		if len(r.Args) == 0 {
			v := action(r)
			uncond = &v
			continue
		}
		seen, repeated := map[uint]bool{}, false
		for _, c := range r.Args {
			repeated = repeated || seen[c.Index]
			seen[c.Index] = true
		}
		match := !repeated
		for _, c := range r.Args {
			if repeated && holds(c) {
				match = true
				break
			}
			if !repeated && !holds(c) {
				match = false
				break
			}
		}
		if match {
			return action(r)
		}
	}
	if uncond != nil {
		return *uncond
	}
	def, err := actionValue(p.DefaultAction, p.DefaultErrnoRet, uint(unix.EPERM))
	if err != nil {
		t.Fatal(err)
	}
	return def
}

// argumentValues are values that matter to the default profile's
// conditions (open flags, set-ID modes, clone flags, ioctl requests)
// and values that do not, with and without junk in the high 32 bits.
var argumentValues = []uint64{
	0, 1, 8, 9, 17, 0o755, 0o644, 0o4755, 0o2755, 0o6755, 0o1777, 0o4000, 0o2000,
	unix.O_CREAT, unix.O_CREAT | unix.O_EXCL | unix.O_WRONLY, unix.O_TMPFILE | unix.O_RDWR,
	unix.O_RDONLY | unix.O_CLOEXEC, unix.O_DIRECTORY, 1<<22 | unix.O_CREAT,
	unix.S_IFREG | 0o4755, unix.S_IFCHR | 0o600, 0x5401, 0x5412, 0x541c,
	0x01200011, 0x10000000 | 17, 0x00020000, 0x80, 0x400,
	1<<32 | 0o755, 1<<32 | unix.O_CREAT, 0xffffffff00005412, 0xffffffff00000000 | 0o4755,
	^uint64(0),
}

// argumentVectors combines every pair of argumentValues in every pair of
// the first four argument positions (the others 0).
func argumentVectors() [][6]uint64 {
	var out [][6]uint64
	for i := 0; i < 4; i++ {
		for j := i + 1; j < 4; j++ {
			for _, vi := range argumentValues {
				for _, vj := range argumentValues {
					var v [6]uint64
					v[i], v[j] = vi, vj
					out = append(out, v)
				}
			}
		}
	}
	return out
}

// TestDefaultFilterMatchesProfile: for every syscall number of amd64 and
// arm64 (and unassigned numbers) and a few thousand argument vectors,
// the compiled default filter returns what the profile says.
func TestDefaultFilterMatchesProfile(t *testing.T) {
	p := DefaultProfile()
	vectors := argumentVectors()
	for _, arch := range []string{"amd64", "arm64"} {
		a, _ := lookupArch(arch)
		f := compileDefault(t, arch)
		byNr := map[int]string{}
		for n, nr := range a.numbers() {
			byNr[nr] = n
		}
		conditional := map[string]bool{}
		for _, r := range p.Syscalls {
			for _, n := range r.names() {
				conditional[n] = conditional[n] || len(r.Args) > 0
			}
		}
		for nr := 0; nr < 1024; nr++ {
			name, known := byNr[nr]
			vs := vectors
			if !conditional[name] {
				vs = vectors[:len(argumentValues)] // the arguments do not matter
			}
			for _, args := range vs {
				want := profileVerdict(t, p, name, args)
				if !known {
					want = retErrno | uint32(unix.ENOSYS)
				}
				got, _ := interpret(t, f.Program, a.auditArch, uint32(nr), args)
				if got != want {
					t.Fatalf("%s: %s (%d) %#o = %#x, want %#x", arch, name, nr, args, got, want)
				}
			}
		}
	}
}

// TestInterpreterMatchesVM checks the test interpreter against
// golang.org/x/net/bpf's on the default filter.
func TestInterpreterMatchesVM(t *testing.T) {
	f := compileDefault(t, "amd64")
	for nr := uint32(0); nr < 500; nr += 3 {
		for _, args := range argumentVectors()[:200] {
			got, _ := interpret(t, f.Program, auditAmd64, nr, args)
			if want := runFilter(t, f, auditAmd64, nr, args[:]...); got != want {
				t.Fatalf("nr %d %x: interpreter %#x, VM %#x", nr, args, got, want)
			}
		}
	}
}

// TestSetIDModesRefused: the default profile refuses to create or chmod
// set-user-ID and set-group-ID files, and lets everything else through.
func TestSetIDModesRefused(t *testing.T) {
	f := compileDefault(t, "amd64")
	nr := func(n string) uint32 { return uint32(syscallNumbersAmd64()[n]) }
	const (
		creat = unix.O_WRONLY | unix.O_CREAT | unix.O_TRUNC | unix.O_CLOEXEC
		tmp   = unix.O_TMPFILE | unix.O_RDWR
	)
	tests := []struct {
		call string
		args [6]uint64
		want uint32
	}{
		{"chmod", [6]uint64{0, 0o4755}, errnoEPERM},
		{"chmod", [6]uint64{0, 0o2755}, errnoEPERM},
		{"chmod", [6]uint64{0, 0o755}, retAllow},
		{"chmod", [6]uint64{0, 0o1777}, retAllow}, // sticky is fine
		{"fchmod", [6]uint64{3, 0o6755}, errnoEPERM},
		{"fchmod", [6]uint64{3, 0o644}, retAllow},
		{"fchmodat", [6]uint64{3, 0, 0o4755}, errnoEPERM},
		{"fchmodat", [6]uint64{3, 0, 0o755}, retAllow},
		{"fchmodat2", [6]uint64{3, 0, 0o2700, 0}, errnoEPERM},
		{"fchmodat2", [6]uint64{3, 0, 0o700, 0}, retAllow},
		{"creat", [6]uint64{0, 0o4755}, errnoEPERM},
		{"creat", [6]uint64{0, 0o644}, retAllow},
		{"mknod", [6]uint64{0, unix.S_IFREG | 0o4755}, errnoEPERM},
		{"mknod", [6]uint64{0, unix.S_IFIFO | 0o644}, retAllow},
		{"mknodat", [6]uint64{3, 0, unix.S_IFREG | 0o2755}, errnoEPERM},
		{"mknodat", [6]uint64{3, 0, unix.S_IFIFO | 0o600}, retAllow},
		{"openat", [6]uint64{3, 0, creat, 0o4755}, errnoEPERM},
		{"openat", [6]uint64{3, 0, creat, 0o2755}, errnoEPERM},
		{"openat", [6]uint64{3, 0, tmp, 0o4755}, errnoEPERM},
		{"openat", [6]uint64{3, 0, creat, 0o755}, retAllow},
		{"openat", [6]uint64{3, 0, unix.O_RDONLY, 0o4755}, retAllow}, // mode ignored without O_CREAT
		{"openat", [6]uint64{3, 0, unix.O_RDONLY | unix.O_CLOEXEC, 0}, retAllow},
		{"open", [6]uint64{0, creat, 0o4755}, errnoEPERM},
		{"open", [6]uint64{0, tmp, 0o6000}, errnoEPERM},
		{"open", [6]uint64{0, creat, 0o755}, retAllow},
		{"open", [6]uint64{0, unix.O_RDONLY, 0}, retAllow},
		{"openat2", [6]uint64{3, 0, 0, 24}, retUserNotif},
	}
	for _, tc := range tests {
		if got, _ := interpret(t, f.Program, auditAmd64, nr(tc.call), tc.args); got != tc.want {
			t.Errorf("%s %#o = %#x, want %#x", tc.call, tc.args, got, tc.want)
		}
	}
}

// TestOpenatLeavesFilterEarly: an openat without O_CREAT or O_TMPFILE,
// the most frequent syscall the kernel cannot cache, runs only a few
// instructions (a count, not a timing).
func TestOpenatLeavesFilterEarly(t *testing.T) {
	for _, arch := range []string{"amd64", "arm64"} {
		a, _ := lookupArch(arch)
		f := compileDefault(t, arch)
		openat := uint32(a.numbers()["openat"])
		_, plain := interpret(t, f.Program, a.auditArch, openat, [6]uint64{3, 0, unix.O_RDONLY | unix.O_CLOEXEC})
		_, create := interpret(t, f.Program, a.auditArch, openat, [6]uint64{3, 0, unix.O_WRONLY | unix.O_CREAT | unix.O_CLOEXEC, 0o644})
		t.Logf("%s: openat runs %d instructions (read), %d (create); the filter has %d", arch, plain, create, len(f.Program))
		if plain > 12 || create > 16 {
			t.Errorf("%s: openat runs %d/%d instructions, want at most 12/16", arch, plain, create)
		}
	}
}

// TestReadOnlyTruncateRefused: the default profile answers EACCES to an
// open or openat whose flags carry O_TRUNC without write access
// (O_ACCMODE 0 or 3), whatever else the flags and the high 32 bits
// hold, and lets every open with write access or without O_TRUNC
// through; openat2 goes to the agent.
func TestReadOnlyTruncateRefused(t *testing.T) {
	const errnoEACCES = retErrno | 13
	junk := uint64(0x5ead) << 32
	for _, arch := range []string{"amd64", "arm64"} {
		a, _ := lookupArch(arch)
		f := compileDefault(t, arch)
		tests := []struct {
			flags uint64
			mode  uint64
			want  uint32
		}{
			{unix.O_RDONLY | unix.O_TRUNC, 0, errnoEACCES},
			{3 | unix.O_TRUNC, 0, errnoEACCES},
			{unix.O_RDONLY | unix.O_TRUNC | unix.O_CLOEXEC | unix.O_NOFOLLOW, 0, errnoEACCES},
			{unix.O_RDONLY | unix.O_TRUNC | unix.O_CREAT, 0o644, errnoEACCES},
			{junk | unix.O_RDONLY | unix.O_TRUNC, 0, errnoEACCES},
			{junk | 3 | unix.O_TRUNC, 0, errnoEACCES},
			{unix.O_PATH | unix.O_TRUNC, 0, errnoEACCES},
			{unix.O_WRONLY | unix.O_TRUNC, 0, retAllow},
			{unix.O_RDWR | unix.O_TRUNC, 0, retAllow},
			{unix.O_WRONLY | unix.O_CREAT | unix.O_TRUNC | unix.O_CLOEXEC, 0o644, retAllow},
			{unix.O_RDONLY | unix.O_CLOEXEC, 0, retAllow},
			{3, 0, retAllow},
			{junk | unix.O_RDONLY, 0, retAllow},
			{unix.O_WRONLY | unix.O_CREAT | unix.O_TRUNC, 0o4755, errnoEPERM}, // the set-ID rule still holds
		}
		calls := []struct {
			name string
			args func(flags, mode uint64) [6]uint64
		}{
			{"openat", func(fl, m uint64) [6]uint64 { return [6]uint64{3, 0, fl, m} }},
			{"open", func(fl, m uint64) [6]uint64 { return [6]uint64{0, fl, m} }},
		}
		for _, c := range calls {
			nr, ok := a.numbers()[c.name]
			if !ok {
				continue // arm64 has no open
			}
			for _, tc := range tests {
				if got, _ := interpret(t, f.Program, a.auditArch, uint32(nr), c.args(tc.flags, tc.mode)); got != tc.want {
					t.Errorf("%s: %s flags %#o mode %#o = %#x, want %#x", arch, c.name, tc.flags, tc.mode, got, tc.want)
				}
			}
		}
		got, _ := interpret(t, f.Program, a.auditArch, uint32(a.numbers()["openat2"]), [6]uint64{3, 0, 0, 24})
		if got != retUserNotif {
			t.Errorf("%s: openat2 = %#x, want USER_NOTIF", arch, got)
		}
	}
}

func TestCommonBitRun(t *testing.T) {
	m := func(idx uint, mask, want uint64) condRule {
		return condRule{args: []specs.LinuxSeccompArg{{Index: idx, Op: specs.OpMaskedEqual, Value: mask, ValueTwo: want}}}
	}
	eq := condRule{args: []specs.LinuxSeccompArg{{Index: 2, Op: specs.OpEqualTo, Value: 512}}}
	tests := []struct {
		name  string
		rules []condRule
		n     int
		bit   uint32
	}{
		{"O_TRUNC pair", []condRule{m(2, 515, 512), m(2, 515, 515)}, 2, 512},
		{"same condition twice: grouped already", []condRule{m(2, 64, 64), m(2, 64, 64)}, 0, 0},
		{"no common bit", []condRule{m(2, 64, 64), m(2, 0x400000, 0x400000)}, 0, 0},
		{"run stops at another argument", []condRule{m(2, 515, 512), m(2, 515, 515), m(1, 515, 512)}, 2, 512},
		{"run stops at another operator", []condRule{m(2, 515, 512), m(2, 515, 515), eq}, 2, 512},
		{"lowest common bit", []condRule{m(2, 0xf0, 0x30), m(2, 0xf0, 0x70)}, 2, 0x10},
		{"high word: not guarded", []condRule{m(2, 1<<40|512, 512), m(2, 1<<40|515, 515)}, 0, 0},
		{"impossible test: not guarded", []condRule{m(2, 512, 513), m(2, 515, 515)}, 0, 0},
		{"single rule", []condRule{m(2, 515, 512)}, 0, 0},
		{"unconditional first", []condRule{{}, m(2, 515, 512)}, 0, 0},
	}
	for _, tc := range tests {
		if n, bit := commonBitRun(tc.rules); n != tc.n || bit != tc.bit {
			t.Errorf("%s: run %d bit %#x, want %d %#x", tc.name, n, bit, tc.n, tc.bit)
		}
	}
}
