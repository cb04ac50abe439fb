package core

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/sandbox"
	"github.com/authbench/authbench/tracer/trace"
)

// finishTrace completes `exec --trace FILE` once the events are in f: it
// puts FILE in place, writes the plan beside it and prints the run's
// audit (the denials and the programs run through the dynamic loader).
func (r *SubmittedRun) finishTrace(f *safefile.File, final *runapi.Run) error {
	if err := f.Commit(); err != nil {
		return err
	}
	file := f.Name()
	if final.Plan != nil {
		if err := writePlanRecord(file, final.Plan, sandbox.EnforcementFor(final.LandlockABI)); err != nil {
			return err
		}
	}
	if final.LostEvents > 0 {
		fmt.Fprintf(r.a.Stderr, "authbench: trace: %d events were lost; the denial list may be incomplete\n", final.LostEvents)
	}
	printAudit(r.a.Stderr, final.Denials, final.DeniedDropped, final.LoaderExecs, file)
	return nil
}

// printAudit prints what an audit found, sorted by path.
func printAudit(w io.Writer, denials []audit.Denial, dropped int, viaLoader []trace.LoaderExec, eventsFile string) {
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
		if d.Path2 != "" && d.Op != string(trace.OpExec) {
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
// it beside the trace, as FILE.plan.json (a new file renamed into place:
// a symbolic link planted there is not followed).
func writePlanRecord(traceFile string, pl *policy.Plan, enf sandbox.Enforcement) error {
	record, err := json.MarshalIndent(map[string]any{"plan": pl, "enforcement": enf}, "", "  ")
	if err != nil {
		return err
	}
	return safefile.WriteFile(traceFile+".plan.json", append(record, '\n'), 0o644)
}
