package bench

import (
	"context"
	"errors"
	"fmt"
	"path"

	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/trial"
)

// trialConfig is a trial directory's config.json (Harbor's trial config
// fields that apply).
type trialConfig struct {
	TrialName string            `json:"trial_name"`
	TrialsDir string            `json:"trials_dir"`
	Task      trial.DatasetPath `json:"task"`
	Agent     trial.Name        `json:"agent"`
	Authbench trialSettings     `json:"authbench"`
}

type trialSettings struct {
	Source    string `json:"source"`
	Trial     int    `json:"trial"`
	Semantics string `json:"semantics"`
	Policy    string `json:"policy,omitempty"`
}

// attempt carries out one run through the daemon. A run the daemon
// could not carry out (an API error, or a run with no task result) is
// tried once more.
func attempt(ctx context.Context, api runapi.API, req *runapi.RunRequest) (*runapi.Run, error) {
	var errs []error
	for try := 0; try < 2; try++ {
		final, err := runapi.RunTask(ctx, api, req)
		if err == nil && final.TaskResult == nil {
			err = fmt.Errorf("run %s ended %s without a task result: %s", final.ID, final.State, final.Error)
		}
		if err == nil {
			return final, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, runapi.WithKind(runapi.ErrorDaemon, errors.Join(errs...))
}

// collect copies a finished run's files into its trial directory dir
// (relative to the out dir).
func collect(ctx context.Context, api runapi.API, id string, out *safefile.Dir, dir string) error {
	for _, f := range runapi.TaskArtifacts {
		if f.Trial == "" {
			continue
		}
		data, err := runapi.ReadLog(ctx, api, id, f.API)
		if err != nil {
			return err
		}
		if len(data) == 0 {
			continue
		}
		name := path.Join(dir, f.Trial)
		if err := out.MkdirAll(path.Dir(name)); err != nil {
			return err
		}
		if err := out.WriteFile(name, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeTrial writes a trial directory's config.json (the store writes
// its result.json with the run's row).
func writeTrial(out *safefile.Dir, r *trial.Record, taskDir, policyFile string) error {
	cfg := trialConfig{TrialName: path.Base(r.Dir), TrialsDir: out.Path(), Task: trial.DatasetPath{Path: taskDir},
		Agent:     trial.Name{Name: r.Agent},
		Authbench: trialSettings{Source: r.Source, Trial: r.Trial, Semantics: r.Semantics, Policy: policyFile}}
	return writeJSONFile(out, path.Join(r.Dir, JobConfigFile), cfg)
}
