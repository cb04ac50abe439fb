package bench

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/taskrun"
	"github.com/authbench/authbench/tasks"
)

// trialFiles are the daemon's files of a task run and where they go in
// the trial directory (Harbor's agent/ and verifier/ folders, the rest
// under authbench/).
var trialFiles = []struct{ log, name string }{
	{"agent-stdout", "agent/stdout.txt"},
	{"agent-stderr", "agent/stderr.txt"},
	{"verifier-utility", "verifier/utility.log"},
	{"verifier-attack", "verifier/attack.log"},
	{"result", "authbench/" + taskrun.ResultFile},
	{"events", "authbench/" + taskrun.EventsFile},
	{"plan", "authbench/" + taskrun.PlanFile},
	{"build", "authbench/" + taskrun.BuildLogFile},
}

// trialConfig is a trial directory's config.json (Harbor's trial config
// fields that apply).
type trialConfig struct {
	TrialName string        `json:"trial_name"`
	TrialsDir string        `json:"trials_dir"`
	Task      datasetPath   `json:"task"`
	Agent     nameOnly      `json:"agent"`
	Authbench trialSettings `json:"authbench"`
}

type trialSettings struct {
	Source    string `json:"source"`
	Trial     int    `json:"trial"`
	Semantics string `json:"semantics"`
	Policy    string `json:"policy,omitempty"`
}

// trialResult is a trial directory's result.json: Harbor's trial result
// fields that apply, and the bench's record.
type trialResult struct {
	ID             string         `json:"id"`
	TaskName       string         `json:"task_name"`
	TrialName      string         `json:"trial_name"`
	TrialURI       string         `json:"trial_uri"`
	TaskID         datasetPath    `json:"task_id"`
	AgentInfo      nameOnly       `json:"agent_info"`
	VerifierResult *verifierStats `json:"verifier_result"`
	ExceptionInfo  *exceptionInfo `json:"exception_info"`
	StartedAt      time.Time      `json:"started_at"`
	FinishedAt     time.Time      `json:"finished_at"`
	Authbench      *Record        `json:"authbench"`
}

type verifierStats struct {
	Rewards map[string]float64 `json:"rewards"`
}

type exceptionInfo struct {
	Type    string `json:"exception_type"`
	Message string `json:"exception_message"`
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
	return nil, errors.Join(errs...)
}

// collect copies a finished run's files into its trial directory dir
// (relative to the out dir).
func collect(ctx context.Context, api runapi.API, id string, out *safefile.Dir, dir string) error {
	for _, f := range trialFiles {
		data, err := runapi.ReadLog(ctx, api, id, f.log)
		if err != nil {
			return err
		}
		if len(data) == 0 {
			continue
		}
		name := path.Join(dir, f.name)
		if err := out.MkdirAll(path.Dir(name)); err != nil {
			return err
		}
		if err := out.WriteFile(name, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// fillResult sets a record's verdicts, classification and static score
// from a task run's result.
func fillResult(r *Record, res *runapi.TaskResult, rp runPolicy, t *tasks.Task) {
	r.Utility, r.Attack = res.Utility, res.Attack
	r.TracedExposure = len(res.TracedSensitive) > 0
	r.VerifierError = res.VerifierError
	r.Error = res.Error
	r.Denials = len(res.Denials)
	r.SetupS = res.SetupMS / 1000
	r.AgentS = res.DurationS
	r.LostEvent = res.LostEvents
	if rp.source != taskrun.SourceUnconstrained {
		r.Semantics = string(res.Semantics)
	}
	r.VerifyS = res.VerifyS
	r.AgentCapabilities = res.AgentCapabilities
	for _, f := range res.VerifierTampered {
		r.TamperedFiles = append(r.TamperedFiles, f.Path)
		if !slices.Contains(r.TamperedVerifiers, f.Verifier) {
			r.TamperedVerifiers = append(r.TamperedVerifiers, f.Verifier)
		}
	}
	slices.Sort(r.TamperedVerifiers)
	r.TamperedOmitted = res.VerifierTamperedOmitted
	r.VerifiersUntraced = res.Error == "" && !res.VerifiersTraced
	r.AgentExitCode, r.AgentSignal, r.AgentTimedOut = res.ExitCode, exitSignal(res.ExitCode), res.TimedOut
	r.AgentStopReason = res.AgentStopReason
	r.ImageSubstitutions = res.ImageSubstitutions
	denials, mmapExecs := splitMmapExecs(res.Denials)
	r.MmapExecs = mmapExecs
	c := Classify(Outcome{Utility: res.Utility, Attack: res.Attack, Denials: denials, MmapExecs: mmapExecs,
		Sensitive: res.TracedSensitive, Policy: rp.pol, Spec: t.Spec, Tampered: r.TamperedFiles,
		VerifiersUntraced: r.VerifiersUntraced, Shortcut: r.Agent == taskrun.AgentShortcut,
		OracleUnderSpec: r.Agent == taskrun.AgentOracle && rp.source == taskrun.SourceSpec,
		AgentFailed:     res.Error == "" && r.AgentFailed()})
	r.Classes, r.Primary, r.DecidingDenial, r.ExposureAccess = c.Classes, c.Primary, c.DecidingDenial, c.ExposureAccess
	fillScore(r, res.StaticScore, rp, t.Spec)
	if r.ScoreError == "" && res.StaticScore == nil {
		r.ScoreError = res.StaticScoreError
	}
}

// splitMmapExecs separates the audit's listing of files mapped executable
// without an execute right (exec_via_mmap: code ran, nothing was refused)
// from the refused operations.
func splitMmapExecs(all []audit.Denial) (denials []audit.Denial, mmapExecs []string) {
	for _, d := range all {
		if d.Op == audit.OpExecViaMmap {
			mmapExecs = append(mmapExecs, d.Path)
			continue
		}
		denials = append(denials, d)
	}
	return denials, mmapExecs
}

// exitSignal names the signal of an exit status 128+n ("" for a status
// that is not one).
func exitSignal(code int) string {
	if code <= 128 || code > 128+64 {
		return ""
	}
	return unix.SignalName(syscall.Signal(code - 128))
}

// fillScore sets the static score: none for unconstrained runs, 0 for an
// invalid policy, else the task run's static_score when it has one. The
// network axis is filled when spec scores it.
func fillScore(r *Record, s *policy.Score, rp runPolicy, spec *policy.Spec) {
	defer func() {
		if !r.Scored || spec == nil || !spec.Network.Scored() {
			return
		}
		var p, rc, f1 float64
		if r.PolicyValid && s != nil && s.Network != nil {
			p, rc, f1 = s.Network.Precision, s.Network.Recall, s.Network.F1
		}
		r.NetworkP, r.NetworkR, r.NetworkF1 = &p, &rc, &f1
	}()
	r.PolicyValid = rp.valid
	r.PolicyError = rp.err
	switch {
	case rp.source == taskrun.SourceUnconstrained:
		r.Scored = false
	case !rp.valid:
		r.Scored = true
	case s == nil:
		r.Scored = false // the task run could not score its policy
	case !s.Valid:
		r.Scored, r.PolicyValid, r.PolicyError = true, false, s.Error
	default:
		r.Scored = true
		r.ReadP, r.ReadR, r.ReadF1 = axis(s, policy.Read)
		r.WriteP, r.WriteR, r.WriteF1 = axis(s, policy.Write)
		r.ExecP, r.ExecR, r.ExecF1 = axis(s, policy.Execute)
		r.SensitiveCoverage = s.SensitiveCoverage
	}
}

func axis(s *policy.Score, a policy.Axis) (p, r, f1 float64) {
	x := s.Axes[a]
	return x.Precision, x.Recall, x.F1
}

// writeTrial writes a trial directory's config.json (the store writes
// its result.json with the run's row).
func writeTrial(out *safefile.Dir, r *Record, taskDir, policyFile string) error {
	cfg := trialConfig{TrialName: path.Base(r.Dir), TrialsDir: out.Path(), Task: datasetPath{taskDir},
		Agent:     nameOnly{r.Agent},
		Authbench: trialSettings{Source: r.Source, Trial: r.Trial, Semantics: r.Semantics, Policy: policyFile}}
	return writeJSONFile(out, path.Join(r.Dir, JobConfigFile), cfg)
}

// trialResultOf is the result.json of the run r, whose trial directory
// is dir.
func trialResultOf(r *Record, started time.Time, taskDir, dir string) trialResult {
	name := filepath.Base(dir)
	res := trialResult{ID: name, TaskName: r.Task, TrialName: name, TrialURI: "file://" + dir,
		TaskID: datasetPath{taskDir}, AgentInfo: nameOnly{r.Agent}, StartedAt: started.UTC(), FinishedAt: r.Finished, Authbench: r}
	if r.Error != "" {
		res.ExceptionInfo = &exceptionInfo{Type: "RunError", Message: r.Error}
	} else {
		rewards := map[string]float64{"reward": boolReward(r.Utility)}
		if r.Attack != nil {
			rewards["attack"] = boolReward(*r.Attack)
		}
		res.VerifierResult = &verifierStats{Rewards: rewards}
	}
	return res
}

func boolReward(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
