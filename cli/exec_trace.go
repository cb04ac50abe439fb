package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"syscall"

	"go.uber.org/zap"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/sandbox"
	"github.com/authbench/authbench/tracer"
)

// maxDenials bounds the distinct denials kept for the report.
const maxDenials = 10000

// execTrace is the tracing side of `exec --trace`: it writes the events of
// the confined tree as JSON lines, adds an exec event for every program
// run through the dynamic loader (Path2 is then the loader), and collects
// the denials. A nil *execTrace traces nothing.
type execTrace struct {
	tr       *tracer.Tracer
	sess     *tracer.Session
	file     *os.File
	jw       *tracer.Writer
	plan     *policy.Plan
	root     *policy.Root
	consumed chan error

	// Filled by the consumer goroutine, read after it is done.
	denials  map[denial]int
	dropped  int
	viaLoad  []tracer.LoaderExec
	ldDetect tracer.LoaderExecDetector
}

// denial is a traced operation that failed with EACCES or EPERM and that
// the plan forbids (DESIGN §7).
type denial struct {
	axis, op, path, path2, errno string
}

// openExecTrace loads the tracer, creates the event file and records the
// run's plan and enforcement beside it (FILE.plan.json).
func (a *app) openExecTrace(file string, pl *policy.Plan, enf sandbox.Enforcement) (*execTrace, error) {
	root, err := policy.NewRoot(pl.Root)
	if err != nil {
		return nil, err
	}
	record, err := json.MarshalIndent(map[string]any{"plan": pl, "enforcement": enf}, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(file+".plan.json", append(record, '\n'), 0o644); err != nil {
		return nil, err
	}
	tr, err := tracer.Load(tracer.Options{}, a.log)
	if err != nil {
		return nil, err
	}
	f, err := os.Create(file)
	if err != nil {
		tr.Close()
		return nil, err
	}
	return &execTrace{tr: tr, file: f, jw: tracer.NewWriter(f), plan: pl, root: root,
		consumed: make(chan error, 1), denials: map[denial]int{},
		ldDetect: tracer.LoaderExecDetector{Resolve: root.Realpath}}, nil
}

// track starts the session on the gated sandbox-init process; its own
// start-up is left out (FromExec), the command's first exec is kept.
func (t *execTrace) track(pid int) error {
	if t == nil {
		return nil
	}
	sess, err := t.tr.TrackWith(pid, tracer.TrackOptions{FromExec: true})
	if err != nil {
		return err
	}
	t.sess = sess
	go func() { t.consumed <- t.consume() }()
	return nil
}

// consume writes every event and classifies it.
func (t *execTrace) consume() error {
	var werr error
	write := func(ev *tracer.Event) {
		if werr == nil {
			werr = t.jw.Write(ev)
		}
	}
	for ev := range t.sess.Events() {
		write(&ev)
		if le, ok := t.ldDetect.Observe(&ev); ok {
			t.viaLoad = append(t.viaLoad, le)
			derived := le.ExecEvent()
			write(&derived)
			if !t.permits(&derived) {
				t.addDenial(&derived)
			}
		}
		if isDenied(&ev) && !t.permits(&ev) {
			t.addDenial(&ev)
		}
	}
	return werr
}

// isDenied reports whether ev failed the way a refused access fails.
func isDenied(ev *tracer.Event) bool {
	return ev.Failed() && (ev.Ret == -int64(syscall.EACCES) || ev.Ret == -int64(syscall.EPERM))
}

// permits asks the plan whether the operation was allowed.
func (t *execTrace) permits(ev *tracer.Event) bool {
	op := policy.Operation{Op: string(ev.Op), Path: ev.Path, Path2: ev.Path2, Flags: ev.Flags}
	if ev.Op == tracer.OpExec {
		op.Path2 = ""
	}
	return t.plan.Permits(op, t.root.Realpath)
}

func (t *execTrace) addDenial(ev *tracer.Event) {
	d := denial{axis: string(ev.Axis), op: string(ev.Op), path: ev.Path, path2: ev.Path2, errno: ev.Errno}
	if ev.Ret >= 0 {
		d.errno = "allowed by the kernel, outside the plan"
	}
	if _, ok := t.denials[d]; !ok && len(t.denials) >= maxDenials {
		t.dropped++
		return
	}
	t.denials[d]++
}

// abort releases the tracer when the run could not start.
func (t *execTrace) abort() {
	if t == nil {
		return
	}
	if t.sess != nil {
		_, _ = t.sess.Close()
		<-t.consumed
	}
	t.file.Close()
	t.tr.Close()
}

// finish closes the session, completes the event file and prints the
// denials on stderr.
func (t *execTrace) finish(a *app) error {
	if t == nil {
		return nil
	}
	sum, closeErr := t.sess.Close()
	consumeErr := <-t.consumed
	werr := t.jw.Close(sum)
	ferr := t.file.Close()
	terr := t.tr.Close()
	if sum.Lost > 0 {
		a.log.Warn("trace lost events", zap.Uint64("lost", sum.Lost))
		fmt.Fprintf(a.stderr, "authbench: trace: %d events were lost; the denial list may be incomplete\n", sum.Lost)
	}
	t.report(a)
	return errors.Join(closeErr, consumeErr, werr, ferr, terr)
}

// report prints the denials (path, axis, operation) and the programs run
// through the dynamic loader.
func (t *execTrace) report(a *app) {
	for _, le := range t.viaLoad {
		fmt.Fprintf(a.stderr, "authbench: trace: pid %d ran %s through the dynamic loader %s (an execute of %s)\n",
			le.PID, le.Program, le.Loader, le.Program)
	}
	if len(t.denials) == 0 {
		fmt.Fprintf(a.stderr, "authbench: trace: no denials (events in %s)\n", t.file.Name())
		return
	}
	list := make([]denial, 0, len(t.denials))
	for d := range t.denials {
		list = append(list, d)
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].path != list[j].path {
			return list[i].path < list[j].path
		}
		return list[i].op < list[j].op
	})
	fmt.Fprintf(a.stderr, "authbench: trace: %d denied accesses (events in %s):\n", len(list), t.file.Name())
	for _, d := range list {
		target := d.path
		if d.path2 != "" && d.op != string(tracer.OpExec) {
			target += " -> " + d.path2
		}
		n := ""
		if c := t.denials[d]; c > 1 {
			n = fmt.Sprintf(" (%d times)", c)
		}
		fmt.Fprintf(a.stderr, "  %-7s %-8s %s [%s]%s\n", d.axis, d.op, target, d.errno, n)
	}
	if t.dropped > 0 {
		fmt.Fprintf(a.stderr, "  ... and %d more\n", t.dropped)
	}
}
