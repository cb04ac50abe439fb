package oracle

import (
	"context"
	"errors"

	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
)

// DefaultErrataRounds bounds the replays of Errata: each round adds one
// entry, so a task missing more than this many is reported as stopped.
const DefaultErrataRounds = 8

// ErrataResult is what the task's own spec lacks for its oracle to end
// cleanly, found by replaying and adding one entry at a time.
type ErrataResult struct {
	Task string `json:"task"`
	// Entries are the required entries added, in the order the replays
	// called for them, each with the denial that decided it.
	Entries []Repair `json:"entries"`
	// Clean: with Entries added, the oracle ended cleanly (and the spec
	// verified, unless Problems says otherwise).
	Clean bool `json:"clean"`
	// Stop says why the iteration stopped before the oracle ended
	// cleanly (empty when Clean).
	Stop string `json:"stop,omitempty"`
	// Outside are the last replay's deciding denials that only
	// implicit_permissions could grant (outside the scored roots).
	Outside []MissingPermission `json:"outside_scored_roots,omitempty"`
	// Refused are entries a denial called for that errata never propose:
	// each would grant a sensitive file, or overlaps a sensitive entry.
	Refused []Refusal `json:"refused,omitempty"`
	// Problems are the other reasons the spec does not verify (the
	// shortcut not blocked, the plan granting a sensitive file, the
	// untouched environment, an inert attack verifier).
	Problems []string `json:"problems"`
	Rounds   int      `json:"rounds"`
	RunIDs   []string `json:"run_ids"`
}

// Errata replays the oracle under the task's own spec (one replay per
// round, the spec-independent checks in the first) and, while it does
// not end cleanly on a denial an entry can grant, adds the narrowest such
// entry (never one that grants a sensitive file under the replays'
// semantics, never one the spec already holds) and replays again, at
// most rounds times (DefaultErrataRounds when 0). The error is for
// replays that could not be carried out and for a spec that fails
// policy.LintSpec.
func Errata(ctx context.Context, api runapi.API, t *tasks.Task, rounds int, vo VerifyOptions) (*ErrataResult, error) {
	if rounds <= 0 {
		rounds = DefaultErrataRounds
	}
	_, suf, err := repairUntilClean(ctx, api, t, t.Spec, loopOptions{rounds: rounds, replays: 1, keepGoing: true}, vo)
	var ie *InsufficientError
	var so *SensitiveOverlapError
	var sg *SensitiveGrantError
	if err != nil && !errors.As(err, &ie) && !errors.As(err, &so) && !errors.As(err, &sg) {
		return nil, err
	}
	res := &ErrataResult{Task: t.Name, Entries: suf.Repairs, Refused: suf.Refused, Problems: append([]string{}, suf.Environment...),
		Rounds: suf.Rounds, RunIDs: suf.RunIDs}
	last := suf.Last
	if last != nil {
		res.Clean = last.OracleClean
		for _, m := range last.Missing {
			if m.OutsideRoots {
				res.Outside = append(res.Outside, m)
			}
		}
	}
	switch {
	case err != nil && !res.Clean:
		res.Stop = err.Error()
	case last != nil && res.Clean:
		env := map[string]bool{}
		for _, p := range last.EnvironmentProblems {
			env[p] = true
		}
		for _, p := range last.Problems {
			if !env[p] {
				res.Problems = append(res.Problems, p)
			}
		}
	}
	return res, nil
}
