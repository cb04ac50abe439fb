package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/authbench/authbench/cli/core"
	"github.com/authbench/authbench/oracle"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/sandbox"
	"github.com/authbench/authbench/tracer/trace"
)

// sandboxPrograms are the binaries a bare-host exec's tree starts as
// (this one, its sandbox-init and its front), as realpaths.
func sandboxPrograms() []string {
	self, err := os.Executable()
	if err != nil {
		return nil
	}
	var out []string
	for _, p := range []string{self, sandbox.InitProgram(self), filepath.Join(filepath.Dir(self), "authbench"), filepath.Join(filepath.Dir(self), "authbench-full")} {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			out = append(out, real)
		}
	}
	return out
}

// learnPolicy is exec --learn's Learner: the oracle recorder's derivation
// and compaction over the host's tree, with what the baseline and what
// any program needs to start (which exec adds) left out.
func learnPolicy(logs [][]byte, base policy.Baseline) (*core.Learnt, error) {
	runs := make([][]trace.Event, 0, len(logs))
	for i, data := range logs {
		events, summary, lost, err := oracle.ParseEvents(data)
		switch {
		case err != nil:
			return nil, fmt.Errorf("run %d: its events: %w", i+1, err)
		case !summary || lost > 0:
			return nil, fmt.Errorf("run %d: its event log is incomplete (summary %v, %d lost)", i+1, summary, lost)
		}
		runs = append(runs, oracle.WithoutSandbox(events, sandboxPrograms()))
	}
	root, err := policy.NewRoot("/")
	if err != nil {
		return nil, err
	}
	implicit := base.Permissions
	essentials := policy.SandboxEssentials()
	for _, ax := range policy.Axes {
		implicit[ax] = append(append([]policy.Pattern(nil), implicit[ax]...), essentials[ax]...)
	}
	l, err := oracle.Learn(runs, oracle.RootEnv{Root: root}, implicit)
	if err != nil {
		return nil, err
	}
	out := &core.Learnt{Policy: l.Policy}
	for _, ax := range policy.Axes {
		if n := l.Baseline[ax]; n > 0 {
			out.Notes = append(out.Notes, fmt.Sprintf("%s: %d accesses left to the %s baseline", ax, n, base.Name))
		}
	}
	for _, c := range l.Compactions {
		out.Notes = append(out.Notes, fmt.Sprintf("%s: %s (%s, from %d paths)", c.Axis, c.To, c.Rule, len(c.From)))
	}
	for _, p := range l.Policy.Get(policy.Read) {
		if p.IsExact() && root.IsDir(p.String()) {
			out.Notes = append(out.Notes, fmt.Sprintf("read: %s was listed: a Landlock rule on a directory lets every file below it be read too", p))
		}
	}
	for _, n := range l.Nondeterministic {
		out.Notes = append(out.Notes, fmt.Sprintf("%s: %s was needed by runs %v only (kept)", n.Axis, n.Entry, n.Runs))
	}
	return out, nil
}
