package sandbox

import (
	"encoding/binary"
	"fmt"

	"golang.org/x/net/bpf"
)

// Offsets in struct seccomp_data (little-endian architectures).
const (
	seccompDataNr   = 0
	seccompDataArch = 4
	seccompDataArgs = 16
)

// bpfMaxInstructions is the kernel's BPF_MAXINSNS for classic filters.
const bpfMaxInstructions = 4096

// bpfAsm assembles a classic BPF program with symbolic forward jumps.
// Conditional jumps reach at most 255 instructions; the compiler only
// uses them for short hops and uses unconditional jumps (32-bit) for
// anything farther.
//
// It also tracks which word of seccomp_data the accumulator holds, so
// that load skips reloading it: at a label, the word is known when every
// jump to it (all jumps go forward) and the fall-through agree.
type bpfAsm struct {
	ins    []bpf.Instruction
	fixups []bpfFixup
	labels map[string]int
	next   int

	// loaded is the offset the accumulator was loaded from, -1 if
	// unknown; reachable says whether the next instruction can be
	// reached by falling through.
	loaded    int
	reachable bool
	// arriving are the loaded offsets of the jumps to each label.
	arriving map[string][]int
}

type bpfFixup struct {
	at         int
	jt, jf, ja string
}

func newBPFAsm() *bpfAsm {
	return &bpfAsm{labels: map[string]int{}, loaded: -1, reachable: true, arriving: map[string][]int{}}
}

// newLabel returns a fresh label name.
func (a *bpfAsm) newLabel(prefix string) string {
	a.next++
	return fmt.Sprintf("%s%d", prefix, a.next)
}

// mark places label at the next instruction.
func (a *bpfAsm) mark(label string) {
	a.labels[label] = len(a.ins)
	known := a.loaded
	if !a.reachable {
		known = -2 // no path yet
	}
	for _, off := range a.arriving[label] {
		switch {
		case known == -2:
			known = off
		case known != off:
			known = -1
		}
	}
	if known == -2 {
		known = -1 // unreachable code: assume nothing
	}
	a.loaded, a.reachable = known, true
}

// jumpsTo records the accumulator's content at a jump to label ("" is
// the next instruction, reached with the same content).
func (a *bpfAsm) jumpsTo(label string) {
	if label != "" {
		a.arriving[label] = append(a.arriving[label], a.loaded)
	}
}

func (a *bpfAsm) emit(i bpf.Instruction) {
	a.ins = append(a.ins, i)
	switch i := i.(type) {
	case bpf.LoadAbsolute:
		a.loaded = int(i.Off)
	case bpf.RetConstant, bpf.Jump:
		a.reachable = false
	case bpf.JumpIf:
	default:
		a.loaded = -1
	}
}

// load loads the 32-bit word at off of seccomp_data into A, unless A
// holds it already.
func (a *bpfAsm) load(off uint32) {
	if a.reachable && a.loaded == int(off) {
		return
	}
	a.emit(bpf.LoadAbsolute{Off: off, Size: 4})
}

// ret returns the seccomp action value v.
func (a *bpfAsm) ret(v uint32) { a.emit(bpf.RetConstant{Val: v}) }

// and masks A with v.
func (a *bpfAsm) and(v uint32) { a.emit(bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: v}) }

// jump compares A with v and goes to jt or jf ("" is the next
// instruction).
func (a *bpfAsm) jump(cond bpf.JumpTest, v uint32, jt, jf string) {
	a.fixups = append(a.fixups, bpfFixup{at: len(a.ins), jt: jt, jf: jf})
	a.jumpsTo(jt)
	a.jumpsTo(jf)
	a.emit(bpf.JumpIf{Cond: cond, Val: v})
}

// goTo jumps unconditionally to label.
func (a *bpfAsm) goTo(label string) {
	a.fixups = append(a.fixups, bpfFixup{at: len(a.ins), ja: label})
	a.jumpsTo(label)
	a.emit(bpf.Jump{})
}

// assemble resolves the labels and encodes the program.
func (a *bpfAsm) assemble() ([]bpf.RawInstruction, error) {
	for _, f := range a.fixups {
		skip := func(label string) (uint32, error) {
			if label == "" {
				return 0, nil
			}
			to, ok := a.labels[label]
			if !ok {
				return 0, fmt.Errorf("seccomp: BUG: undefined label %s", label)
			}
			if to <= f.at {
				return 0, fmt.Errorf("seccomp: BUG: backward jump to %s", label)
			}
			return uint32(to - f.at - 1), nil
		}
		if f.ja != "" {
			s, err := skip(f.ja)
			if err != nil {
				return nil, err
			}
			a.ins[f.at] = bpf.Jump{Skip: s}
			continue
		}
		jt, err := skip(f.jt)
		if err != nil {
			return nil, err
		}
		jf, err := skip(f.jf)
		if err != nil {
			return nil, err
		}
		if jt > 255 || jf > 255 {
			return nil, fmt.Errorf("seccomp: BUG: conditional jump of %d/%d instructions", jt, jf)
		}
		j := a.ins[f.at].(bpf.JumpIf)
		j.SkipTrue, j.SkipFalse = uint8(jt), uint8(jf)
		a.ins[f.at] = j
	}
	if len(a.ins) > bpfMaxInstructions {
		return nil, fmt.Errorf("seccomp: filter has %d instructions (the kernel allows %d)", len(a.ins), bpfMaxInstructions)
	}
	return bpf.Assemble(a.ins)
}

// Verdict runs the filter on one system call of its architecture, as
// the kernel would, and returns the SECCOMP_RET_* value: what a test
// checks a compiled profile with.
func (f *Filter) Verdict(name string, args [6]uint64) (uint32, error) {
	arch, err := lookupArch(f.Arch)
	if err != nil {
		return 0, err
	}
	nr, ok := arch.numbers()[name]
	if !ok {
		return 0, fmt.Errorf("%s has no syscall %s", f.Arch, name)
	}
	return evalProgram(f.Program, arch.auditArch, uint32(nr), args)
}

// evalProgram runs a filter program on the seccomp_data of one call
// (golang.org/x/net/bpf's VM loads words big-endian, so they are
// stored that way).
func evalProgram(prog [][4]uint32, audit, nr uint32, args [6]uint64) (uint32, error) {
	ins := make([]bpf.Instruction, len(prog))
	for i, r := range prog {
		ins[i] = bpf.RawInstruction{Op: uint16(r[0]), Jt: uint8(r[1]), Jf: uint8(r[2]), K: r[3]}.Disassemble()
	}
	vm, err := bpf.NewVM(ins)
	if err != nil {
		return 0, fmt.Errorf("filter does not load: %w", err)
	}
	data := make([]byte, 64)
	binary.BigEndian.PutUint32(data[seccompDataNr:], nr)
	binary.BigEndian.PutUint32(data[seccompDataArch:], audit)
	for i, a := range args {
		off := seccompDataArgs + 8*i
		binary.BigEndian.PutUint32(data[off:], uint32(a))
		binary.BigEndian.PutUint32(data[off+4:], uint32(a>>32))
	}
	out, err := vm.Run(data)
	if err != nil {
		return 0, fmt.Errorf("run filter: %w", err)
	}
	return uint32(out), nil
}
