package audit

import (
	"strings"
	"syscall"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/tracer/trace"
)

// MaxDenials bounds the distinct denials an Auditor keeps.
const MaxDenials = 10000

// OutsidePlan is the Errno of a denial the kernel could not refuse: an
// operation that succeeded although the plan forbids it (a program run
// through the dynamic loader).
const OutsidePlan = "allowed by the kernel, outside the plan"

// RanWithoutExecute is the Errno of an exec_via_mmap denial: native code
// of a file the plan gives no execute right was mapped executable (a
// library loaded with LD_PRELOAD or dlopen), which Landlock cannot refuse.
const RanWithoutExecute = "ran without an execute right"

// OpExecViaMmap is the Op of the denial listing of such a mapping.
const OpExecViaMmap = "exec_via_mmap"

// MmapExec is a file the plan gives no execute right that a process
// mapped executable (the first time it did, per file).
type MmapExec struct {
	TS      int64  `json:"ts"`
	PID     int    `json:"pid"`
	TGID    int    `json:"tgid"`
	Comm    string `json:"comm"`
	Path    string `json:"path"` // the file's real path
	Dev     uint64 `json:"dev,omitempty"`
	Ino     uint64 `json:"ino,omitempty"`
	Syscall string `json:"syscall"` // mmap or mprotect
}

// Denial is one distinct denied operation and how often it happened.
type Denial struct {
	Op string `json:"op"`
	// Axis is the axis the operation exercised: empty for a capability
	// denial, AxisNetwork for a refused connection.
	Axis trace.Axis `json:"axis"`
	Path string     `json:"path"`
	// Real is the file Path named (symlinks followed), when it differs.
	Real  string `json:"real,omitempty"`
	Path2 string `json:"path2,omitempty"`
	Errno string `json:"errno"`
	Count int    `json:"count"`
	// Syscall names the system call of a capability denial
	// (CapabilityDenial), e.g. "fchownat"; its Axis is then empty.
	Syscall string `json:"syscall,omitempty"`
}

type denialKey struct {
	op                 string
	axis               trace.Axis
	path, path2, errno string
}

// Auditor follows the events of one run. It is not safe for concurrent
// use: feed it from the goroutine that reads the session.
type Auditor struct {
	// plan is the run's plan, as a copy once a rule's inode has gone
	// (ownPlan; see followInodes).
	plan     *policy.Plan
	ownPlan  bool
	realpath func(string) string
	target   func(string) policy.TargetState // nil: unknown
	// shebang reads the "#!" line of a program (nil: unknown): a refused
	// exec of a script the plan permits was refused its interpreter.
	shebang func(string) []string
	loader  trace.LoaderExecDetector
	denials map[denialKey]int
	reals   map[denialKey]string
	order   []denialKey
	dropped int
	viaLoad []trace.LoaderExec
	viaMmap []MmapExec
	mapped  map[mmapKey]bool
	// written are the files the tree opened for writing (noteWrite).
	written         map[fileID]bool
	writtenOverflow bool
}

type mmapKey struct {
	path     string
	dev, ino uint64
}

// New returns an Auditor for a run under plan (nil: unconstrained, so
// nothing is a denial) whose paths resolve with realpath. realpath must
// see the file system as it is when it is called (a policy.Root's
// RealpathNow, not its cached Realpath): an agent can create the symlink
// it is then refused through.
func New(plan *policy.Plan, realpath func(string) string) *Auditor {
	return &Auditor{
		plan: plan, realpath: realpath, denials: map[denialKey]int{}, reals: map[denialKey]string{},
		loader: trace.LoaderExecDetector{Resolve: realpath}, mapped: map[mmapKey]bool{},
	}
}

// NewInRoot is New judging events against root as it is when they are
// judged: realpaths, and what a refused open named (a file or a
// directory: a read-only open needs READ_FILE on one, READ_DIR on the
// other).
func NewInRoot(plan *policy.Plan, root *policy.Root) *Auditor {
	a := New(plan, root.RealpathNow)
	a.target = root.TargetNow
	a.shebang = root.Shebang
	return a
}

// Observe judges one event. It returns the events derived from it that
// belong in the run's log: an exec event of a program the dynamic loader
// was made to run (its Path2 is the loader).
func (a *Auditor) Observe(ev *trace.Event) []trace.Event {
	var derived []trace.Event
	if le, ok := a.loader.Observe(ev); ok {
		a.viaLoad = append(a.viaLoad, le)
		d := le.ExecEvent()
		if !a.permits(&d) {
			a.add(&d)
		}
		derived = append(derived, d)
	}
	if ev.Op == trace.OpMmap {
		a.observeMmap(ev)
		return derived
	}
	if refused(ev) {
		if !a.permits(ev) {
			a.add(ev)
		} else if d, ok := a.refusedInterpreter(ev); ok {
			a.add(d)
		}
	}
	a.noteWrite(ev)
	a.followInodes(ev)
	return derived
}

// refusedInterpreter is the denial behind a refused exec of a "#!"
// script the plan permits: the kernel then opens the interpreter the
// script's "#!" line names for execution, and that is what the plan
// refused (an exec of its real path, the script as Path2). ok is false
// for any other event, a program that is no script, and an interpreter
// the plan permits too.
func (a *Auditor) refusedInterpreter(ev *trace.Event) (*trace.Event, bool) {
	if ev.Op != trace.OpExec || a.shebang == nil {
		return nil, false
	}
	words := a.shebang(ev.Target())
	if len(words) == 0 || !strings.HasPrefix(words[0], "/") {
		return nil, false
	}
	interp := words[0]
	if a.realpath != nil {
		interp = a.realpath(interp)
	}
	d := &trace.Event{TS: ev.TS, PID: ev.PID, TGID: ev.TGID, PPID: ev.PPID, Start: ev.Start, PStart: ev.PStart, Comm: ev.Comm,
		Op: trace.OpExec, Axis: trace.AxisExecute, Path: interp, Real: interp, Path2: a.realOf(ev), Ret: ev.Ret, Errno: ev.Errno}
	if a.permits(d) {
		return nil, false
	}
	return d, true
}

// observeMmap lists a file mapped executable without an execute right in
// the plan as an exec_via_mmap access, once per file (a refused mapping,
// e.g. on a noexec mount, is not one: nothing ran). A system library (in a
// shared-library directory, not written by the tree) is how every allowed
// program runs and is not listed; one the tree wrote is, wherever it lies.
func (a *Auditor) observeMmap(ev *trace.Event) {
	if ev.Failed() || ev.Real == "" || a.permits(ev) || a.systemLibrary(ev) {
		return
	}
	k := mmapKey{ev.Real, ev.Dev, ev.Ino}
	if a.mapped[k] {
		a.add(&trace.Event{Op: OpExecViaMmap, Axis: trace.AxisExecute, Path: ev.Real, Errno: RanWithoutExecute})
		return
	}
	if len(a.mapped) >= MaxDenials {
		a.dropped++
		return
	}
	a.mapped[k] = true
	a.viaMmap = append(a.viaMmap, MmapExec{TS: ev.TS, PID: ev.PID, TGID: ev.TGID, Comm: ev.Comm,
		Path: ev.Real, Dev: ev.Dev, Ino: ev.Ino, Syscall: ev.Syscall})
	a.add(&trace.Event{Op: OpExecViaMmap, Axis: trace.AxisExecute, Path: ev.Real, Errno: RanWithoutExecute})
}

// refused reports whether ev failed the way a refused access fails.
func refused(ev *trace.Event) bool {
	return ev.Failed() && (ev.Ret == -int64(syscall.EACCES) || ev.Ret == -int64(syscall.EPERM))
}

// permits asks the plan whether the operation was allowed; without a plan
// everything is. The operation's path is the file the kernel reached when
// the event names it (Real), else the name as given, unclean when it had
// "..", resolved now.
func (a *Auditor) permits(ev *trace.Event) bool {
	if a.plan == nil {
		return true
	}
	op := policy.Operation{Op: string(ev.Op), Path: ev.Target(), Path2: ev.Path2, Flags: ev.Flags}
	if ev.Op == trace.OpOpen && ev.Failed() && a.target != nil {
		// What the refused open named: only a read-only open of a file
		// needs READ_FILE (READ_DIR for a directory), only an O_CREAT
		// of a missing file MAKE_REG.
		op.Target = a.target(op.Path)
	}
	switch ev.Op {
	case trace.OpExec:
		op.Path2 = "" // a derived exec names the loader there
	case trace.OpMmap:
		op.Op = string(trace.OpExec) // the execute right, as for a program
	}
	return a.plan.Permits(op, a.realpath)
}

func (a *Auditor) add(ev *trace.Event) {
	k := denialKey{string(ev.Op), ev.Axis, ev.Path, ev.Path2, ev.Errno}
	if ev.Ret >= 0 && ev.Errno == "" {
		k.errno = OutsidePlan
	}
	if _, seen := a.denials[k]; !seen {
		if len(a.denials) >= MaxDenials {
			a.dropped++
			return
		}
		a.order = append(a.order, k)
		if real := a.realOf(ev); real != ev.Path {
			a.reals[k] = real
		}
	}
	a.denials[k]++
}

// realOf is the file a refused operation named: the kernel's real path
// when the event has one, else the name resolved now (symlinks such as
// /bin -> usr/bin followed).
func (a *Auditor) realOf(ev *trace.Event) string {
	if ev.Real != "" {
		return ev.Real
	}
	if a.realpath != nil && ev.Path != "" {
		return a.realpath(ev.Target())
	}
	return ev.Path
}

// Denials returns the distinct denials in order of first occurrence.
func (a *Auditor) Denials() []Denial {
	out := make([]Denial, len(a.order))
	for i, k := range a.order {
		out[i] = Denial{Op: k.op, Axis: k.axis, Path: k.path, Real: a.reals[k], Path2: k.path2, Errno: k.errno, Count: a.denials[k]}
	}
	return out
}

// Dropped is how many further distinct denials did not fit MaxDenials.
func (a *Auditor) Dropped() int { return a.dropped }

// LoaderExecs returns the programs run through the dynamic loader.
func (a *Auditor) LoaderExecs() []trace.LoaderExec { return a.viaLoad }

// MmapExecs returns the files mapped executable without an execute right
// (exec_via_mmap), in order of first mapping.
func (a *Auditor) MmapExecs() []MmapExec { return a.viaMmap }
