package sandbox

import (
	"testing"

	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// BPF opcodes the kernel's cache emulation understands.
const (
	bpfLdWAbs = 0x20
	bpfRetK   = 0x06
	bpfJA     = 0x05
	bpfJEQK   = 0x15
	bpfJGTK   = 0x25
	bpfJGEK   = 0x35
	bpfJSETK  = 0x45
	bpfAndK   = 0x54
)

// kernelConstAllow mirrors seccomp_is_const_allow (kernel/seccomp.c): it
// runs prog knowing only arch and nr and reports whether it reaches
// RET_ALLOW without touching anything else. Such syscall numbers are
// cached by the kernel as allowed and never run the filter again.
func kernelConstAllow(prog [][4]uint32, arch, nr uint32) bool {
	var a uint32
	for pc := 0; pc < len(prog); pc++ {
		code, jt, jf, k := prog[pc][0], prog[pc][1], prog[pc][2], prog[pc][3]
		switch code {
		case bpfLdWAbs:
			switch k {
			case seccompDataNr:
				a = nr
			case seccompDataArch:
				a = arch
			default:
				return false
			}
		case bpfRetK:
			return k == retAllow
		case bpfJA:
			pc += int(k)
		case bpfJEQK, bpfJGTK, bpfJGEK, bpfJSETK:
			pc += condJump(code, a, k, jt, jf)
		case bpfAndK:
			a &= k
		default:
			return false
		}
	}
	return false // ran off the end
}

// TestDefaultFilterConstantAllow: every syscall the default profile
// allows without looking at arguments is cached by the kernel as allowed
// (the filter never runs for it); no other syscall is.
func TestDefaultFilterConstantAllow(t *testing.T) {
	for _, arch := range []string{"amd64", "arm64"} {
		a, _ := lookupArch(arch)
		f := compileDefault(t, arch)
		uncondAllow := map[string]bool{}
		conditional := map[string]bool{}
		for _, r := range DefaultProfile().Syscalls {
			for _, n := range r.Names {
				switch {
				case len(r.Args) > 0:
					conditional[n] = true
				case r.Action == specs.ActAllow:
					uncondAllow[n] = true
				}
			}
		}
		cached := 0
		for name, nr := range a.numbers() {
			want := uncondAllow[name] && !conditional[name]
			got := kernelConstAllow(f.Program, a.auditArch, uint32(nr))
			if got != want {
				t.Errorf("%s: %s (%d) constant-allow = %v, want %v", arch, name, nr, got, want)
			}
			if got {
				cached++
			}
		}
		t.Logf("%s: %d syscalls constant-allow, %d instructions", arch, cached, len(f.Program))
	}
}

// condJump is how far the conditional jump code (JEQ, JGT, JGE or JSET
// with constant k) moves the pc past the next instruction when the
// accumulator holds a.
func condJump(code, a, k, jt, jf uint32) int {
	var taken bool
	switch code {
	case bpfJEQK:
		taken = a == k
	case bpfJGTK:
		taken = a > k
	case bpfJGEK:
		taken = a >= k
	case bpfJSETK:
		taken = a&k != 0
	}
	if taken {
		return int(jt)
	}
	return int(jf)
}

// interpret runs prog on seccomp_data {nr, arch, args} like the kernel
// (little-endian words) and returns the action and the number of
// instructions executed. It supports what the compiler emits.
func interpret(t testing.TB, prog [][4]uint32, arch, nr uint32, args [6]uint64) (uint32, int) {
	var a uint32
	for pc, steps := 0, 1; pc < len(prog); pc, steps = pc+1, steps+1 {
		code, jt, jf, k := prog[pc][0], prog[pc][1], prog[pc][2], prog[pc][3]
		switch code {
		case bpfLdWAbs:
			switch {
			case k == seccompDataNr:
				a = nr
			case k == seccompDataArch:
				a = arch
			case k >= seccompDataArgs && k < seccompDataArgs+48 && k%4 == 0:
				w := args[(k-seccompDataArgs)/8]
				if k%8 == 4 {
					w >>= 32
				}
				a = uint32(w)
			default:
				t.Fatalf("pc %d: load of offset %d", pc, k)
			}
		case bpfAndK:
			a &= k
		case bpfRetK:
			return k, steps
		case bpfJA:
			pc += int(k)
		case bpfJEQK, bpfJGTK, bpfJGEK, bpfJSETK:
			pc += condJump(code, a, k, jt, jf)
		default:
			t.Fatalf("pc %d: opcode %#x", pc, code)
		}
	}
	t.Fatal("ran off the end of the filter")
	return 0, 0
}
