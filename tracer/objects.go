package tracer

import (
	"errors"
	"io"

	"github.com/cilium/ebpf"

	"github.com/authbench/authbench/bpf"
)

// objects are the kernel objects of a loaded tracer. Only the programs of
// the syscall hooks in use are loaded (each program costs load time);
// the others are nil.
type objects struct {
	closers []io.Closer

	AbProcs, AbSessions, AbLost, AbCounters, AbEvents, AbInflight *ebpf.Map

	AbFork, AbExec, AbExit, AbSync *ebpf.Program
	AbSysEnter, AbSysExit          *ebpf.Program    // raw mode
	AbTpEnter                      [6]*ebpf.Program // tracepoint mode, by argument count 1..5
	AbTpExit                       *ebpf.Program
}

// common are the maps and programs of every mode. LoadAndAssign creates
// just what a struct names (NewCollection would also map .rodata into
// memory, which keeps it alive until a garbage collection).
type common struct {
	bpf.TracerMaps
	AbFork     *ebpf.Program `ebpf:"ab_fork"`
	AbExec     *ebpf.Program `ebpf:"ab_exec"`
	AbExit     *ebpf.Program `ebpf:"ab_exit"`
	AbSync     *ebpf.Program `ebpf:"ab_sync"`
	AbSysEnter *ebpf.Program `ebpf:"ab_sys_enter"`
	AbSysExit  *ebpf.Program `ebpf:"ab_sys_exit"`
}

// loadObjects creates the maps and the programs needed for the mode; in
// tracepoint mode the raw programs are loaded too, as the fallback.
func loadObjects(spec *ebpf.CollectionSpec, tracepoints bool) (objects, error) {
	var (
		c  common
		tp struct {
			common
			AbTpEnter1 *ebpf.Program `ebpf:"ab_tp_enter1"`
			AbTpEnter2 *ebpf.Program `ebpf:"ab_tp_enter2"`
			AbTpEnter3 *ebpf.Program `ebpf:"ab_tp_enter3"`
			AbTpEnter4 *ebpf.Program `ebpf:"ab_tp_enter4"`
			AbTpEnter5 *ebpf.Program `ebpf:"ab_tp_enter5"`
			AbTpExit   *ebpf.Program `ebpf:"ab_tp_exit"`
		}
		o objects
	)
	if tracepoints {
		if err := spec.LoadAndAssign(&tp, nil); err != nil {
			return objects{}, err
		}
		c = tp.common
		o.AbTpEnter = [6]*ebpf.Program{nil, tp.AbTpEnter1, tp.AbTpEnter2, tp.AbTpEnter3, tp.AbTpEnter4, tp.AbTpEnter5}
		o.AbTpExit = tp.AbTpExit
		for _, p := range append(o.AbTpEnter[1:], o.AbTpExit) {
			o.closers = append(o.closers, p)
		}
	} else if err := spec.LoadAndAssign(&c, nil); err != nil {
		return objects{}, err
	}
	o.closers = append(o.closers, &c.TracerMaps, c.AbFork, c.AbExec, c.AbExit, c.AbSync, c.AbSysEnter, c.AbSysExit)
	o.AbProcs, o.AbSessions, o.AbLost = c.AbProcs, c.AbSessions, c.AbLost
	o.AbCounters, o.AbEvents, o.AbInflight = c.AbCounters, c.AbEvents, c.AbInflight
	o.AbFork, o.AbExec, o.AbExit, o.AbSync = c.AbFork, c.AbExec, c.AbExit, c.AbSync
	o.AbSysEnter, o.AbSysExit = c.AbSysEnter, c.AbSysExit
	return o, nil
}

// programs lists the loaded programs that record events.
func (o *objects) programs() []*ebpf.Program {
	var ps []*ebpf.Program
	for _, p := range append([]*ebpf.Program{o.AbFork, o.AbExec, o.AbExit, o.AbSysEnter, o.AbSysExit, o.AbTpExit}, o.AbTpEnter[:]...) {
		if p != nil {
			ps = append(ps, p)
		}
	}
	return ps
}

// Close frees the maps and programs (links must be closed first).
func (o *objects) Close() error {
	var errs []error
	for _, c := range o.closers {
		errs = append(errs, c.Close())
	}
	o.closers = nil
	return errors.Join(errs...)
}

// all lists every loaded program and map, for tests.
func (o *objects) all() ([]*ebpf.Program, []*ebpf.Map) {
	ps := append(o.programs(), o.AbSync)
	var ms []*ebpf.Map
	for _, c := range o.closers {
		if m, ok := c.(*bpf.TracerMaps); ok {
			ms = append(ms, m.AbCounters, m.AbEvents, m.AbInflight, m.AbLost, m.AbProcs, m.AbScratch, m.AbSessions, m.AbWalkstate)
		}
	}
	return ps, ms
}
