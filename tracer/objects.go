package tracer

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"

	"github.com/authbench/authbench/bpf"
)

// objects are the kernel objects of a loaded tracer. LoadAndAssign creates
// just what the struct names (bpf.TracerObjects would also map .rodata
// into memory, which keeps it alive until a garbage collection).
type objects struct {
	bpf.TracerMaps
	AbSysExit *ebpf.Program `ebpf:"ab_sys_exit"`
	AbExec    *ebpf.Program `ebpf:"ab_exec"`
	AbFork    *ebpf.Program `ebpf:"ab_fork"`
	AbExit    *ebpf.Program `ebpf:"ab_exit"`
	AbSync    *ebpf.Program `ebpf:"ab_sync"`
	AbURing   *ebpf.Program `ebpf:"ab_uring"`
	// prepare holds ab_prepare, loaded apart (loadPrepare) because its
	// tracepoint exists only since Linux 6.10; empty without it. (A
	// slice: LoadAndAssign would take a *ebpf.Program field for its own.)
	prepare []*ebpf.Program
}

// programs lists the loaded programs that record events.
func (o *objects) programs() []*ebpf.Program {
	return append([]*ebpf.Program{o.AbSysExit, o.AbExec, o.AbFork, o.AbExit, o.AbURing}, o.prepare...)
}

// Close frees the maps and programs (links must be closed first).
func (o *objects) Close() error {
	errs := []error{o.TracerMaps.Close()}
	for _, p := range append(o.programs(), o.AbSync) {
		if p != nil {
			errs = append(errs, p.Close())
		}
	}
	return errors.Join(errs...)
}

// all lists every loaded program and map, for tests.
func (o *objects) all() ([]*ebpf.Program, []*ebpf.Map) {
	m := &o.TracerMaps
	return append(o.programs(), o.AbSync),
		[]*ebpf.Map{m.AbCounters, m.AbEvents, m.AbLost, m.AbProcs, m.AbScratch, m.AbSessions, m.AbWalkstate,
			m.AbEnvstate, m.AbExecfile}
}

// prepareTracepoint is the tracepoint ab_prepare attaches to (Linux 6.10).
const prepareTracepoint = "sched_prepare_exec"

// hasPrepareTracepoint reports whether the running kernel has the
// sched_prepare_exec tracepoint.
func hasPrepareTracepoint() bool {
	spec, err := btf.LoadKernelSpec()
	if err != nil {
		return false
	}
	_, err = spec.AnyTypeByName("btf_trace_" + prepareTracepoint)
	return err == nil
}

// loadPrepare loads ab_prepare, sharing the maps of o (loaded first):
// the collection's other programs must not be loaded twice.
func (o *objects) loadPrepare(spec *ebpf.CollectionSpec) error {
	var p struct {
		Prog *ebpf.Program `ebpf:"ab_prepare"`
	}
	err := spec.LoadAndAssign(&p, &ebpf.CollectionOptions{MapReplacements: map[string]*ebpf.Map{
		"ab_procs": o.AbProcs, "ab_execfile": o.AbExecfile,
	}})
	if err != nil {
		return fmt.Errorf("load %s program: %w", prepareTracepoint, err)
	}
	o.prepare = []*ebpf.Program{p.Prog}
	return nil
}

// kernelSymbol returns the address of the kernel symbol name from
// /proc/kallsyms; 0 when it is not there or addresses are hidden
// (kptr_restrict).
func kernelSymbol(name string) uint64 {
	f, err := os.Open("/proc/kallsyms")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 3 && fields[2] == name {
			addr, err := strconv.ParseUint(fields[0], 16, 64)
			if err != nil {
				return 0
			}
			return addr
		}
	}
	return 0
}
