package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/authbench/authbench/agent/agentname"
	"github.com/authbench/authbench/cli/core"
	"github.com/authbench/authbench/internal/termtext"
	"github.com/authbench/authbench/permreq"
	"github.com/authbench/authbench/runapi"
)

// requestFlags are --requests, --max-requests and --request-timeout.
type requestFlags struct {
	decider  string
	max      int
	timeoutS float64
}

func (f *requestFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.decider, "requests", "", "let the agent (openai:MODEL, cmd:, installed:) request permissions at run time, decided by `DECIDER`: "+
		strings.Join(permreq.Deciders, ", ")+" (docs/security.md)")
	fl.IntVar(&f.max, "max-requests", 0, "at most `N` permission requests per run (default 8)")
	fl.Float64Var(&f.timeoutS, "request-timeout", 0, "each permission request answered within `SECONDS` (default 30)")
}

// apply checks the flags (bad input exits 2) and sets them on tr.
func (f requestFlags) apply(tr *runapi.TaskRequest) error {
	if n, _ := agentname.Parse(tr.Agent); f.decider != "" && tr.Agent != "" && !n.CanRequest() {
		return core.UsageErrorf("--requests: agent %s cannot make permission requests (openai:MODEL, cmd:COMMAND and installed:NAME agents can)", tr.Agent)
	}
	if f.decider == "" {
		if f.max != 0 || f.timeoutS != 0 {
			return core.UsageErrorf("--max-requests and --request-timeout need --requests")
		}
		return nil
	}
	if err := permreq.CheckDecider(f.decider); err != nil {
		return core.UsageErrorf("--requests: %v", err)
	}
	if f.max < 0 || f.max > 1000 {
		return core.UsageErrorf("--max-requests: want 0 to 1000, got %d", f.max)
	}
	if !(f.timeoutS >= 0 && f.timeoutS <= 600) {
		return core.UsageErrorf("--request-timeout: want 0 to 600 seconds, got %v", f.timeoutS)
	}
	tr.Requests, tr.MaxRequests, tr.RequestTimeoutS = f.decider, f.max, f.timeoutS
	return nil
}

// printRequests prints a run's permission requests, one line each (the
// agent's texts made safe for the terminal).
func printRequests(w io.Writer, r *runapi.TaskResult) {
	if r.Requests == "" {
		return
	}
	fmt.Fprintf(w, "  permission requests (%s): %d", r.Requests, len(r.PermissionRequests))
	if r.PermissionRequestsOverLimit > 0 {
		fmt.Fprintf(w, ", %d more over the limit", r.PermissionRequestsOverLimit)
	}
	fmt.Fprintln(w)
	for _, p := range r.PermissionRequests {
		used := ""
		if p.Used {
			used = ", used"
		}
		fmt.Fprintf(w, "  request %-8s %-7s %s: %s%s\n", p.Decision, termtext.Escape(p.Access), termtext.Escape(p.Path), termtext.Escape(p.Why), used)
	}
}
