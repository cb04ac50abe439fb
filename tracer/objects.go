package tracer

import (
	"errors"

	"github.com/cilium/ebpf"

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
}

// programs lists the loaded programs that record events.
func (o *objects) programs() []*ebpf.Program {
	return []*ebpf.Program{o.AbSysExit, o.AbExec, o.AbFork, o.AbExit, o.AbURing}
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
		[]*ebpf.Map{m.AbCounters, m.AbEvents, m.AbLost, m.AbProcs, m.AbScratch, m.AbSessions, m.AbWalkstate}
}
