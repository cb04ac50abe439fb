package sandbox

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	specs "github.com/opencontainers/runtime-spec/specs-go"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Seccomp return values (SECCOMP_RET_*).
const (
	retKillProcess uint32 = 0x80000000
	retKillThread  uint32 = 0x00000000
	retTrap        uint32 = 0x00030000
	retErrno       uint32 = 0x00050000
	retUserNotif   uint32 = 0x7fc00000
	retTrace       uint32 = 0x7ff00000
	retLog         uint32 = 0x7ffc0000
	retAllow       uint32 = 0x7fff0000
)

// Seccomp filter flags (SECCOMP_FILTER_FLAG_*).
const (
	filterFlagTSync     uint = 1 << 0
	filterFlagLog       uint = 1 << 1
	filterFlagSpecAllow uint = 1 << 2
)

// maxErrno bounds errnoRet: the kernel keeps 16 bits, errno values stop
// at 4095.
const maxErrno = 4095

// CompileOptions describe the process a filter is compiled for.
type CompileOptions struct {
	// Arch is the Go architecture name; "" means this one.
	Arch string
	// Capabilities are the capabilities the command will hold (for
	// Docker's includes/excludes "caps"), e.g. "CAP_SYS_ADMIN".
	Capabilities map[string]bool
	// KernelRelease is `uname -r` (for "minKernel"); "" means this kernel.
	KernelRelease string
}

// Filter is a compiled seccomp filter, ready for sandbox-init to install.
type Filter struct {
	// Profile names the profile it came from.
	Profile string `json:"profile"`
	// Arch is the architecture it was compiled for.
	Arch string `json:"arch"`
	// Flags are the SECCOMP_FILTER_FLAG_* bits; TSYNC is always set.
	Flags uint `json:"flags"`
	// Program is the classic BPF program: [code, jt, jf, k] per
	// instruction.
	Program [][4]uint32 `json:"program"`
	// Skipped lists profile names that are syscalls of other
	// architectures only (Docker profiles name 32-bit calls).
	Skipped []string `json:"skipped,omitempty"`
}

// filterJSON is Filter as JSON: the program as the bytes of its
// instructions (four little-endian uint32s each), base64, so that
// sandbox-init decodes a few kilobytes of base64 rather than thousands of
// JSON numbers.
type filterJSON struct {
	Profile string   `json:"profile"`
	Arch    string   `json:"arch"`
	Flags   uint     `json:"flags"`
	Program []byte   `json:"program"`
	Skipped []string `json:"skipped,omitempty"`
}

// MarshalJSON writes f as a filterJSON.
func (f Filter) MarshalJSON() ([]byte, error) {
	prog := make([]byte, 0, 16*len(f.Program))
	for _, ins := range f.Program {
		for _, v := range ins {
			prog = binary.LittleEndian.AppendUint32(prog, v)
		}
	}
	return json.Marshal(filterJSON{Profile: f.Profile, Arch: f.Arch, Flags: f.Flags, Program: prog, Skipped: f.Skipped})
}

// UnmarshalJSON reads a filterJSON; an unknown field is an error, as in
// the rest of a sandbox-init spec.
func (f *Filter) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var w filterJSON
	if err := dec.Decode(&w); err != nil {
		return fmt.Errorf("seccomp filter: %w", err)
	}
	if len(w.Program)%16 != 0 {
		return fmt.Errorf("seccomp filter: program of %d bytes is not a whole number of instructions", len(w.Program))
	}
	prog := make([][4]uint32, len(w.Program)/16)
	for i := range prog {
		for j := range prog[i] {
			prog[i][j] = binary.LittleEndian.Uint32(w.Program[16*i+4*j:])
		}
	}
	*f = Filter{Profile: w.Profile, Arch: w.Arch, Flags: w.Flags, Program: prog, Skipped: w.Skipped}
	return nil
}

// UnknownSyscallsError reports profile names that are no syscall of any
// Linux architecture.
type UnknownSyscallsError struct {
	Profile string
	Names   []string
}

func (e *UnknownSyscallsError) Error() string {
	return fmt.Sprintf("seccomp profile %s: unknown syscall names: %s", e.Profile, strings.Join(e.Names, ", "))
}

// condRule is a rule with argument conditions (all must hold).
type condRule struct {
	args   []specs.LinuxSeccompArg
	action uint32
}

// syscallRules is everything a profile says about one syscall number.
type syscallRules struct {
	nr     int
	name   string
	conds  []condRule
	uncond *uint32
}

// CompileProfile compiles p into a BPF filter. Per syscall, rules with
// argument conditions are tried in profile order, then the rule without
// conditions, then the default action; a rule whose args name the same
// index twice is split into one rule per condition (as runc does), so
// those conditions are ORed. Syscalls of other ABIs of the machine
// (32-bit x86, x32, 32-bit ARM) kill the process.
func CompileProfile(p *Profile, opts CompileOptions) (*Filter, error) {
	arch, err := lookupArch(opts.Arch)
	if err != nil {
		return nil, err
	}
	env := &compileEnv{arch: arch, caps: opts.Capabilities}
	env.kernel, err = kernelVersion(opts.KernelRelease)
	if err != nil {
		return nil, err
	}
	if err := checkArchitectures(p, arch); err != nil {
		return nil, err
	}
	f := &Filter{Profile: p.Source, Arch: arch.goarch, Flags: filterFlagTSync}
	for _, fl := range p.Flags {
		switch fl {
		case "SECCOMP_FILTER_FLAG_TSYNC":
		case specs.LinuxSeccompFlagLog:
			f.Flags |= filterFlagLog
		case specs.LinuxSeccompFlagSpecAllow:
			f.Flags |= filterFlagSpecAllow
		default:
			return nil, fmt.Errorf("seccomp profile %s: flag %s is not supported", p.Source, fl)
		}
	}
	defErrno := uint(unix.EPERM)
	if p.DefaultErrnoRet != nil {
		defErrno = *p.DefaultErrnoRet
	}
	defAction, err := actionValue(p.DefaultAction, p.DefaultErrnoRet, defErrno)
	if err != nil {
		return nil, fmt.Errorf("seccomp profile %s: defaultAction: %w", p.Source, err)
	}
	table, skipped, err := env.collect(p)
	if err != nil {
		return nil, err
	}
	f.Skipped = skipped
	raw, err := buildProgram(arch, table, defAction)
	if err != nil {
		return nil, fmt.Errorf("seccomp profile %s: %w", p.Source, err)
	}
	for _, r := range raw {
		f.Program = append(f.Program, [4]uint32{uint32(r.Op), uint32(r.Jt), uint32(r.Jf), r.K})
	}
	return f, nil
}

// opRetK is the opcode of "return constant" (BPF_RET|BPF_K).
const opRetK = 0x06

// notifiedSyscall is the one syscall a profile may send to a seccomp
// agent (SCMP_ACT_NOTIFY): sandbox-init runs the openat2 agent for it.
const notifiedSyscall = "openat2"

// Notifies reports whether the filter sends a syscall to a seccomp agent
// (some rule returns SECCOMP_RET_USER_NOTIF): sandbox-init then starts
// the openat2 agent and installs the filter with a listener.
func (f *Filter) Notifies() bool {
	for _, in := range f.Program {
		if in[0] == opRetK && in[3] == retUserNotif {
			return true
		}
	}
	return false
}

type compileEnv struct {
	arch   *seccompArch
	caps   map[string]bool
	kernel [2]int
}

// collect resolves every applicable rule to syscall numbers.
func (env *compileEnv) collect(p *Profile) (map[int]*syscallRules, []string, error) {
	table := map[int]*syscallRules{}
	var unknown, skipped []string
	seenUnknown := map[string]bool{}
	for i := range p.Syscalls {
		r := &p.Syscalls[i]
		names := r.names()
		if len(names) == 0 {
			return nil, nil, fmt.Errorf("seccomp profile %s: syscalls[%d] names no syscall", p.Source, i)
		}
		action, err := actionValue(r.Action, r.ErrnoRet, uint(unix.EPERM))
		if err != nil {
			return nil, nil, fmt.Errorf("seccomp profile %s: syscalls[%d]: %w", p.Source, i, err)
		}
		for _, a := range r.Args {
			if a.Index > 5 {
				return nil, nil, fmt.Errorf("seccomp profile %s: syscalls[%d]: argument index %d (syscalls have 6)", p.Source, i, a.Index)
			}
			if _, ok := argOps[a.Op]; !ok {
				return nil, nil, fmt.Errorf("seccomp profile %s: syscalls[%d]: unknown operator %q", p.Source, i, a.Op)
			}
		}
		applies := env.applies(r)
		for _, name := range names {
			nr, ok := env.arch.numbers()[name]
			if !ok {
				if !knownSyscallNames()[name] && !archPrivateSyscalls[name] {
					if !seenUnknown[name] {
						unknown = append(unknown, name)
						seenUnknown[name] = true
					}
				} else if applies {
					skipped = append(skipped, name)
				}
				continue
			}
			if !applies {
				continue
			}
			if action == retUserNotif && name != notifiedSyscall {
				return nil, nil, fmt.Errorf("seccomp profile %s: syscalls[%d]: action %s for %s: authbench's seccomp agent serves %s only",
					p.Source, i, r.Action, name, notifiedSyscall)
			}
			sr := table[nr]
			if sr == nil {
				sr = &syscallRules{nr: nr, name: name}
				table[nr] = sr
			}
			if err := sr.add(r.Args, action); err != nil {
				return nil, nil, fmt.Errorf("seccomp profile %s: syscalls[%d]: %w", p.Source, i, err)
			}
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, nil, &UnknownSyscallsError{Profile: p.Source, Names: unknown}
	}
	sort.Strings(skipped)
	return table, skipped, nil
}

// add records one rule for the syscall.
func (sr *syscallRules) add(args []specs.LinuxSeccompArg, action uint32) error {
	if len(args) == 0 {
		if sr.uncond != nil && *sr.uncond != action {
			return fmt.Errorf("syscall %s has two unconditional rules with different actions", sr.name)
		}
		sr.uncond = &action
		return nil
	}
	seen := map[uint]bool{}
	repeated := false
	for _, a := range args {
		repeated = repeated || seen[a.Index]
		seen[a.Index] = true
	}
	if !repeated {
		sr.conds = append(sr.conds, condRule{args: args, action: action})
		return nil
	}
	for _, a := range args {
		sr.conds = append(sr.conds, condRule{args: []specs.LinuxSeccompArg{a}, action: action})
	}
	return nil
}

// applies evaluates a rule's Docker includes/excludes.
func (env *compileEnv) applies(r *SyscallRule) bool {
	if inc := r.Includes; inc != nil {
		if len(inc.Arches) > 0 && !env.anyArch(inc.Arches) {
			return false
		}
		for _, c := range inc.Caps {
			if !env.caps[c] {
				return false
			}
		}
		if inc.MinKernel != "" && !env.kernelAtLeast(inc.MinKernel) {
			return false
		}
	}
	if exc := r.Excludes; exc != nil {
		if len(exc.Arches) > 0 && env.anyArch(exc.Arches) {
			return false
		}
		for _, c := range exc.Caps {
			if env.caps[c] {
				return false
			}
		}
		if exc.MinKernel != "" && env.kernelAtLeast(exc.MinKernel) {
			return false
		}
	}
	return true
}

func (env *compileEnv) anyArch(names []string) bool {
	for _, n := range names {
		if env.arch.isNamed(n) {
			return true
		}
	}
	return false
}

func (env *compileEnv) kernelAtLeast(v string) bool {
	want, err := parseKernelVersion(v)
	if err != nil {
		return false
	}
	return env.kernel[0] > want[0] || env.kernel[0] == want[0] && env.kernel[1] >= want[1]
}

// kernelVersion returns major.minor of release, or of this kernel.
func kernelVersion(release string) ([2]int, error) {
	if release == "" {
		var u unix.Utsname
		if err := unix.Uname(&u); err != nil {
			return [2]int{}, fmt.Errorf("uname: %w", err)
		}
		release = unix.ByteSliceToString(u.Release[:])
	}
	return parseKernelVersion(release)
}

func parseKernelVersion(s string) ([2]int, error) {
	parts := strings.SplitN(s, ".", 3)
	var v [2]int
	for i := 0; i < 2 && i < len(parts); i++ {
		digits := parts[i]
		if j := strings.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' }); j >= 0 {
			digits = digits[:j]
		}
		n, err := strconv.Atoi(digits)
		if err != nil {
			return v, fmt.Errorf("kernel version %q: %w", s, err)
		}
		v[i] = n
	}
	return v, nil
}

// checkArchitectures refuses a profile that lists architectures but not
// this one.
func checkArchitectures(p *Profile, arch *seccompArch) error {
	var listed []string
	for _, a := range p.Architectures {
		listed = append(listed, string(a))
	}
	for _, m := range p.ArchMap {
		listed = append(listed, string(m.Architecture))
	}
	if len(listed) == 0 {
		return nil
	}
	for _, a := range listed {
		if arch.isNamed(a) {
			return nil
		}
	}
	return fmt.Errorf("seccomp profile %s: does not cover this architecture (%s); it lists %s",
		p.Source, arch.scmp, strings.Join(listed, ", "))
}

// actionValue converts an OCI action to its SECCOMP_RET_* value.
func actionValue(act specs.LinuxSeccompAction, errnoRet *uint, defErrno uint) (uint32, error) {
	data := defErrno
	if errnoRet != nil {
		data = *errnoRet
	}
	switch act {
	case specs.ActAllow:
		return retAllow, nil
	case specs.ActKillProcess:
		return retKillProcess, nil
	case specs.ActKill, specs.ActKillThread:
		return retKillThread, nil
	case specs.ActTrap:
		return retTrap, nil
	case specs.ActLog:
		return retLog, nil
	case specs.ActErrno:
		if data > maxErrno {
			return 0, fmt.Errorf("errnoRet %d is not an errno", data)
		}
		return retErrno | uint32(data), nil
	case specs.ActTrace:
		if errnoRet == nil {
			data = 0
		}
		if data > 0xffff {
			return 0, fmt.Errorf("trace data %d does not fit 16 bits", data)
		}
		return retTrace | uint32(data), nil
	case specs.ActNotify:
		return retUserNotif, nil
	}
	return 0, fmt.Errorf("unknown action %q", act)
}

// argOps are the supported comparison operators.
var argOps = map[specs.LinuxSeccompOperator]bool{
	specs.OpNotEqual: true, specs.OpLessThan: true, specs.OpLessEqual: true, specs.OpEqualTo: true,
	specs.OpGreaterEqual: true, specs.OpGreaterThan: true, specs.OpMaskedEqual: true,
}

// decision is what the filter does for a run of syscall numbers: return
// a fixed action, or jump to the block of one syscall with conditions.
type decision struct {
	action uint32
	block  *syscallRules
}

type interval struct {
	start int
	d     decision
}

// hotSyscalls are syscalls that are frequent in file-heavy workloads
// and that profiles give argument conditions (so the kernel cannot cache
// their verdict): when one has conditions, its rules are placed right
// after the architecture check, before the binary search, so that it
// leaves the filter in a few instructions. Each costs the other
// filtered syscalls one comparison; syscalls the kernel caches as
// allowed never run the filter at all.
var hotSyscalls = []string{"openat", "open", "ioctl"}

// maxHotBlock bounds the size of an inlined block (conditional jumps
// reach 255 instructions).
const maxHotBlock = 200

// buildProgram lays out the filter: check the architecture (and the x32
// bit), then the rules of the hot syscalls, then a binary search over
// runs of syscall numbers that share a decision, then one block per
// syscall with argument conditions.
//
// Every syscall whose verdict is ALLOW and does not depend on its
// arguments reaches RET ALLOW through loads of arch and nr, JEQ, JSET,
// JGE and JA only, which is what the kernel's action cache
// (seccomp_cache_prepare) needs to mark it allowed without running the
// filter again.
func buildProgram(arch *seccompArch, table map[int]*syscallRules, def uint32) ([]bpf.RawInstruction, error) {
	a := newBPFAsm()
	a.load(seccompDataArch)
	a.jump(bpf.JumpEqual, arch.auditArch, "arch_ok", "")
	a.ret(retKillProcess)
	a.mark("arch_ok")
	a.load(seccompDataNr)
	if arch.x32Bit != 0 {
		a.jump(bpf.JumpBitsSet, arch.x32Bit, "", "nr_ok")
		a.ret(retKillProcess)
		a.mark("nr_ok")
	}
	hot := map[int]bool{}
	for _, name := range hotSyscalls {
		nr, ok := arch.numbers()[name]
		if !ok || table[nr] == nil || len(table[nr].conds) == 0 {
			continue
		}
		trial := newBPFAsm()
		emitBlock(trial, table[nr], def)
		if len(trial.ins) > maxHotBlock {
			continue
		}
		hot[nr] = true
		next := a.newLabel("not_" + name)
		a.load(seccompDataNr)
		a.jump(bpf.JumpEqual, uint32(nr), "", next)
		emitBlock(a, table[nr], def)
		a.mark(next)
	}
	a.load(seccompDataNr)
	ivs := intervals(table, hot, def)
	blocks := map[*syscallRules]string{}
	if err := emitSearch(a, ivs, blocks); err != nil {
		return nil, err
	}
	// Blocks in syscall order, so that the output is deterministic.
	var order []*syscallRules
	for sr := range blocks {
		order = append(order, sr)
	}
	sort.Slice(order, func(i, j int) bool { return order[i].nr < order[j].nr })
	for _, sr := range order {
		a.mark(blocks[sr])
		emitBlock(a, sr, def)
	}
	return a.assemble()
}

// intervals turns the per-syscall decisions into sorted runs covering
// every number from 0 up. Numbers in done were decided before the
// search: they take their neighbour's decision, so they cost nothing.
func intervals(table map[int]*syscallRules, done map[int]bool, def uint32) []interval {
	nrs := make([]int, 0, len(table))
	for nr := range table {
		nrs = append(nrs, nr)
	}
	sort.Ints(nrs)
	dec := func(nr int) decision {
		for nr > 0 && done[nr] {
			nr--
		}
		sr := table[nr]
		if sr == nil {
			return decision{action: def}
		}
		if len(sr.conds) == 0 {
			return decision{action: *sr.uncond}
		}
		return decision{block: sr}
	}
	out := []interval{{start: 0, d: dec(0)}}
	add := func(start int, d decision) {
		if out[len(out)-1].d != d {
			out = append(out, interval{start: start, d: d})
		}
	}
	for _, nr := range nrs {
		if nr == 0 {
			continue
		}
		add(nr, dec(nr))
		add(nr+1, dec(nr+1))
	}
	return out
}

// emitSearch emits a binary search over ivs; A holds the syscall number.
func emitSearch(a *bpfAsm, ivs []interval, blocks map[*syscallRules]string) error {
	if len(ivs) == 1 {
		d := ivs[0].d
		if d.block == nil {
			a.ret(d.action)
			return nil
		}
		l, ok := blocks[d.block]
		if !ok {
			l = a.newLabel("block_" + d.block.name + "_")
			blocks[d.block] = l
		}
		a.goTo(l)
		return nil
	}
	mid := len(ivs) / 2
	left := a.newLabel("lt")
	right := a.newLabel("ge")
	a.jump(bpf.JumpGreaterOrEqual, uint32(ivs[mid].start), "", left)
	a.goTo(right)
	a.mark(left)
	if err := emitSearch(a, ivs[:mid], blocks); err != nil {
		return err
	}
	a.mark(right)
	return emitSearch(a, ivs[mid:], blocks)
}

// emitBlock emits the rules of one syscall with argument conditions.
func emitBlock(a *bpfAsm, sr *syscallRules, def uint32) {
	emitRules(a, sr.conds)
	if sr.uncond != nil {
		a.ret(*sr.uncond)
	} else {
		a.ret(def)
	}
}

// emitRules returns the action of the first rule whose conditions all
// hold, and falls through when none does. Consecutive rules that start
// with the same condition test it once: when it fails, they are all
// skipped. Consecutive rules whose first conditions differ but are
// masked tests of one argument that all need a common bit set (O_TRUNC
// with either access mode) are skipped together by one test of that bit.
func emitRules(a *bpfAsm, rules []condRule) {
	emitRulesGuarded(a, rules, true)
}

func emitRulesGuarded(a *bpfAsm, rules []condRule, guard bool) {
	for i := 0; i < len(rules); {
		first := rules[i]
		if len(first.args) == 0 {
			a.ret(first.action) // later rules cannot be reached
			return
		}
		if n, bit := commonBitRun(rules[i:]); guard && n > 0 {
			skip := a.newLabel("skip")
			a.load(uint32(seccompDataArgs + 8*first.args[0].Index))
			a.jump(bpf.JumpBitsSet, bit, "", skip)
			emitRulesGuarded(a, rules[i:i+n], false)
			a.mark(skip)
			i += n
			continue
		}
		j := i + 1
		for j < len(rules) && len(rules[j].args) > 0 && rules[j].args[0] == first.args[0] {
			j++
		}
		skip := a.newLabel("skip")
		emitCondition(a, first.args[0], skip)
		tails := make([]condRule, 0, j-i)
		for _, r := range rules[i:j] {
			tails = append(tails, condRule{args: r.args[1:], action: r.action})
		}
		emitRules(a, tails)
		a.mark(skip)
		i = j
	}
}

// commonBitRun finds the longest run at the start of rules whose first
// conditions are masked tests (of the low 32 bits) of the same argument
// that all need one bit set, with at least two different conditions. It
// returns the run's length and that bit, or 0 when there is no such run.
func commonBitRun(rules []condRule) (int, uint32) {
	lowMasked := func(r condRule) (specs.LinuxSeccompArg, bool) {
		if len(r.args) == 0 {
			return specs.LinuxSeccompArg{}, false
		}
		c := r.args[0]
		return c, c.Op == specs.OpMaskedEqual && c.Value>>32 == 0 && c.ValueTwo&^c.Value == 0
	}
	first, ok := lowMasked(rules[0])
	if !ok {
		return 0, 0
	}
	common, n, distinct := uint32(first.ValueTwo), 1, false
	for _, r := range rules[1:] {
		c, ok := lowMasked(r)
		if !ok || c.Index != first.Index || common&uint32(c.ValueTwo) == 0 {
			break
		}
		common &= uint32(c.ValueTwo)
		distinct = distinct || c != first
		n++
	}
	if !distinct || common == 0 {
		return 0, 0
	}
	return n, common & -common
}

// emitCondition falls through when the 64-bit argument comparison holds
// and jumps to fail otherwise. Comparisons are unsigned, on the high
// then the low 32-bit word (little-endian layout).
func emitCondition(a *bpfAsm, c specs.LinuxSeccompArg, fail string) {
	lo := uint32(seccompDataArgs + 8*c.Index)
	hi := lo + 4
	vhi, vlo := uint32(c.Value>>32), uint32(c.Value)
	pass := a.newLabel("pass")
	switch c.Op {
	case specs.OpEqualTo:
		a.load(hi)
		a.jump(bpf.JumpEqual, vhi, "", fail)
		a.load(lo)
		a.jump(bpf.JumpEqual, vlo, pass, fail)
	case specs.OpNotEqual:
		a.load(hi)
		a.jump(bpf.JumpEqual, vhi, "", pass)
		a.load(lo)
		a.jump(bpf.JumpEqual, vlo, fail, pass)
	case specs.OpGreaterThan, specs.OpGreaterEqual:
		a.load(hi)
		a.jump(bpf.JumpGreaterThan, vhi, pass, "")
		a.jump(bpf.JumpEqual, vhi, "", fail)
		a.load(lo)
		cond := bpf.JumpGreaterThan
		if c.Op == specs.OpGreaterEqual {
			cond = bpf.JumpGreaterOrEqual
		}
		a.jump(cond, vlo, pass, fail)
	case specs.OpLessThan, specs.OpLessEqual:
		a.load(hi)
		a.jump(bpf.JumpGreaterOrEqual, vhi, "", pass)
		a.jump(bpf.JumpEqual, vhi, "", fail)
		a.load(lo)
		// lo < v ⇔ !(lo >= v); lo <= v ⇔ !(lo > v)
		cond := bpf.JumpGreaterOrEqual
		if c.Op == specs.OpLessEqual {
			cond = bpf.JumpGreaterThan
		}
		a.jump(cond, vlo, fail, pass)
	case specs.OpMaskedEqual:
		whi, wlo := uint32(c.ValueTwo>>32), uint32(c.ValueTwo)
		if emitMaskedWord(a, hi, vhi, whi, fail) {
			emitMaskedWord(a, lo, vlo, wlo, fail)
		}
	}
	a.mark(pass)
}

// emitMaskedWord falls through when word&mask == want for the word at
// off and jumps to fail otherwise. A zero mask needs no load, a full
// mask no AND, a single-bit mask is one JSET. It reports false when the
// test can never hold (it then only jumps to fail).
func emitMaskedWord(a *bpfAsm, off, mask, want uint32, fail string) bool {
	switch {
	case want&^mask != 0:
		a.goTo(fail)
		return false
	case mask == 0:
		return true
	}
	a.load(off)
	switch {
	case mask&(mask-1) == 0 && want == mask:
		a.jump(bpf.JumpBitsSet, mask, "", fail)
	case mask&(mask-1) == 0: // want == 0
		a.jump(bpf.JumpBitsSet, mask, fail, "")
	case mask == ^uint32(0):
		a.jump(bpf.JumpEqual, want, "", fail)
	default:
		a.and(mask)
		a.jump(bpf.JumpEqual, want, "", fail)
	}
	return true
}
