package core

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
)

// MaxLearnRuns bounds exec --runs.
const MaxLearnRuns = 100

// Learnt is what a Learner made of the learning runs.
type Learnt struct {
	// Policy is the policy the runs needed.
	Policy *policy.Policy
	// Notes are lines for people: compactions, entries only some runs
	// needed, what the baseline covered.
	Notes []string
}

// Learner turns the event logs of traced runs into the policy they
// needed, what base grants left out (the full CLI's: App.Learn).
type Learner func(eventLogs [][]byte, base policy.Baseline) (*Learnt, error)

// allowAll is the policy of learning runs without --policy.
const allowAll = `{"read":["/**"],"write":["/**"],"execute":["/**"]}`

// runLearn is exec --learn FILE: the learning runs, the policy, and the
// confined replay that verifies it.
func (a *App) runLearn(ef execFlags, args []string) error {
	if a.Learn == nil {
		return UsageErrorf("exec --learn: this binary cannot learn policies (the full CLI, authbench-full, can)")
	}
	if ef.runs < 1 || ef.runs > MaxLearnRuns {
		return UsageErrorf("exec --runs %d: want 1 to %d", ef.runs, MaxLearnRuns)
	}
	if ef.trace != "" {
		return UsageErrorf("exec: --learn and --trace cannot be given together (--learn traces every run)")
	}
	if err := CheckOutFile(ef.learn); err != nil {
		return UsageErrorf("exec: --learn: %v", err)
	}
	base, err := policy.LoadBaseline(ef.Baseline)
	if err != nil {
		return Usage(err)
	}
	tmp, err := os.MkdirTemp("", "authbench-learn-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	learning := ef
	if learning.Policy == "" {
		learning.Policy = filepath.Join(tmp, "allow-all.json")
		if err := os.WriteFile(learning.Policy, []byte(allowAll), 0o600); err != nil {
			return err
		}
	}
	logs, status, err := a.learningRuns(learning, args, tmp)
	if err != nil {
		return err
	}
	learnt, err := a.Learn(logs, base)
	if err != nil {
		return fmt.Errorf("exec --learn: %w", err)
	}
	doc, err := learnt.Policy.MarshalJSON()
	if err != nil {
		return err
	}
	if err := safefile.WriteFile(ef.learn, append(doc, '\n'), 0o644); err != nil {
		return fmt.Errorf("exec --learn: %w", err)
	}
	for _, n := range learnt.Notes {
		fmt.Fprintf(a.Stderr, "authbench: learn: %s\n", n)
	}
	fmt.Fprintf(a.Stderr, "authbench: learn: the policy is in %s; exec adds the %s baseline to it (authbench policy plan --policy %s lists both):\n", ef.learn, base.Name, ef.learn)
	for _, ax := range policy.Axes {
		var list []string
		for _, p := range base.Permissions.Get(ax) {
			list = append(list, p.String())
		}
		fmt.Fprintf(a.Stderr, "  baseline %-7s %s\n", ax, strings.Join(list, " "))
	}
	return a.verifyLearnt(ef, args, tmp, status)
}

// learningRuns runs the command traced ef.runs times and returns the
// event logs and the command's status (every run must end alike).
func (a *App) learningRuns(ef execFlags, args []string, tmp string) ([][]byte, int, error) {
	var logs [][]byte
	status := -1
	for i := 1; i <= ef.runs; i++ {
		fmt.Fprintf(a.Stderr, "authbench: learn: run %d of %d, traced, under %s\n", i, ef.runs, ef.Policy)
		run := ef
		run.learn, run.trace = "", filepath.Join(tmp, fmt.Sprintf("run-%d.jsonl", i))
		final, code, err := a.execStatus(run, args)
		if err != nil {
			return nil, 0, err
		}
		if final.LostEvents > 0 || final.TraceIncomplete {
			return nil, 0, &ExitError{Code: ExitFailure, Err: fmt.Errorf("exec --learn: run %d: its trace is incomplete (%d events lost): nothing learnt", i, final.LostEvents)}
		}
		if status >= 0 && code != status {
			return nil, 0, &ExitError{Code: ExitFailure, Err: fmt.Errorf("exec --learn: run %d ended with status %d, run 1 with %d: the command does not end alike, nothing learnt", i, code, status)}
		}
		status = code
		data, err := os.ReadFile(run.trace)
		if err != nil {
			return nil, 0, err
		}
		logs = append(logs, data)
	}
	return logs, status, nil
}

// verifyLearnt replays the command confined to the learnt policy: it must
// end with the learning runs' status and no access denied.
func (a *App) verifyLearnt(ef execFlags, args []string, tmp string, status int) error {
	fmt.Fprintf(a.Stderr, "authbench: learn: verifying: CMD confined to %s, traced\n", ef.learn)
	run := ef
	run.Policy, run.learn, run.trace = ef.learn, "", filepath.Join(tmp, "verify.jsonl")
	final, code, err := a.execStatus(run, args)
	if err != nil {
		return err
	}
	switch {
	case len(final.Denials) > 0 || final.DeniedDropped > 0:
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("exec --learn: the policy did not verify: the confined run was denied %d accesses (listed above)", len(final.Denials)+final.DeniedDropped)}
	case code != status:
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("exec --learn: the policy did not verify: the confined run ended with status %d, the learning runs with %d", code, status)}
	}
	fmt.Fprintf(a.Stderr, "authbench: learn: verified: the confined run ended with status %d and no access denied\n", code)
	a.ExitCode = code
	return nil
}

// execStatus is execOnce with the command's status as a number (its end
// is recorded in App.ExitCode); a run that authbench could not carry out
// (bad input, a sandbox failure) is the error.
func (a *App) execStatus(ef execFlags, args []string) (*runapi.Run, int, error) {
	a.ExitCode = 0
	final, err := a.execOnce(ef, args)
	switch {
	case err != nil:
		return nil, 0, err
	case final == nil:
		return nil, 0, errors.New("exec: no run record")
	}
	return final, a.ExitCode, nil
}
