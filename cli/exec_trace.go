package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	"go.uber.org/zap"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/sandbox"
	"github.com/authbench/authbench/tracer"
)

// execTrace is the tracing side of `exec --trace`: it writes the events of
// the confined tree as JSON lines (with an exec event for every program
// run through the dynamic loader, whose Path2 is then the loader) and
// judges them with an audit.Auditor. A nil *execTrace traces nothing.
type execTrace struct {
	tr      *tracer.Tracer
	file    string
	auditor *audit.Auditor
	rec     *audit.Recording
}

// openExecTrace loads the tracer, creates the event file and records the
// run's plan and enforcement beside it (FILE.plan.json).
func (a *app) openExecTrace(file string, pl *policy.Plan, enf sandbox.Enforcement) (*execTrace, error) {
	root, err := policy.NewRoot(pl.Root)
	if err != nil {
		return nil, err
	}
	if err := writePlanRecord(file, pl, enf); err != nil {
		return nil, err
	}
	tr, err := tracer.Load(tracer.Options{}, a.log)
	if err != nil {
		return nil, err
	}
	return &execTrace{tr: tr, file: file, auditor: audit.New(pl, root.RealpathNow)}, nil
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
	t.rec, err = audit.Record(sess, t.file, t.auditor, nil)
	return err
}

// abort releases the tracer when the run could not start.
func (t *execTrace) abort() {
	if t == nil {
		return
	}
	if t.rec != nil {
		_, _ = t.rec.Close()
	}
	t.tr.Close()
}

// finish closes the session, completes the event file and prints the
// denials on stderr.
func (t *execTrace) finish(a *app) error {
	if t == nil {
		return nil
	}
	sum, recErr := t.rec.Close()
	terr := t.tr.Close()
	if sum.Lost > 0 {
		a.log.Warn("trace lost events", zap.Uint64("lost", sum.Lost))
		fmt.Fprintf(a.stderr, "authbench: trace: %d events were lost; the denial list may be incomplete\n", sum.Lost)
	}
	t.report(a)
	return errors.Join(recErr, terr)
}

// report prints the denials (path, axis, operation) and the programs run
// through the dynamic loader.
func (t *execTrace) report(a *app) {
	printAudit(a.stderr, t.auditor.Denials(), t.auditor.Dropped(), t.auditor.LoaderExecs(), t.file)
}

// printAudit prints what an audit found, sorted by path, the same for
// embedded and daemon runs.
func printAudit(w io.Writer, denials []audit.Denial, dropped int, viaLoader []tracer.LoaderExec, eventsFile string) {
	for _, le := range viaLoader {
		fmt.Fprintf(w, "authbench: trace: pid %d ran %s through the dynamic loader %s (an execute of %s)\n",
			le.PID, le.Program, le.Loader, le.Program)
	}
	if len(denials) == 0 {
		fmt.Fprintf(w, "authbench: trace: no denials (events in %s)\n", eventsFile)
		return
	}
	list := append([]audit.Denial(nil), denials...)
	sort.Slice(list, func(i, j int) bool {
		if list[i].Path != list[j].Path {
			return list[i].Path < list[j].Path
		}
		return list[i].Op < list[j].Op
	})
	fmt.Fprintf(w, "authbench: trace: %d denied accesses (events in %s):\n", len(list), eventsFile)
	for _, d := range list {
		target := d.Path
		if d.Path2 != "" && d.Op != string(tracer.OpExec) {
			target += " -> " + d.Path2
		}
		n := ""
		if d.Count > 1 {
			n = fmt.Sprintf(" (%d times)", d.Count)
		}
		fmt.Fprintf(w, "  %-7s %-8s %s [%s]%s\n", d.Axis, d.Op, target, d.Errno, n)
	}
	if dropped > 0 {
		fmt.Fprintf(w, "  ... and %d more\n", dropped)
	}
}

// writePlanRecord writes the run's plan and what this kernel enforces of
// it beside the trace, as FILE.plan.json.
func writePlanRecord(traceFile string, pl *policy.Plan, enf sandbox.Enforcement) error {
	record, err := json.MarshalIndent(map[string]any{"plan": pl, "enforcement": enf}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(traceFile+".plan.json", append(record, '\n'), 0o644)
}
