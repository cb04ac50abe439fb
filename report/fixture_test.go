package report

import (
	"time"

	"github.com/authbench/authbench/trial"
	"github.com/authbench/authbench/verdict"
)

// t0 is the finishing time of the first synthetic run.
var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// run is a synthetic record: a successful, scored run of task.
func run(task, dataset, source, agent string, n int) trial.Record {
	r := trial.Record{
		Identity: trial.Identity{Task: task, Dataset: dataset, Source: source, Agent: agent, Trial: n},
		Verdicts: trial.Verdicts{Utility: true}, Classes: []verdict.Class{},
		Dir:      task + "/" + source + "/" + agent + "/" + string(rune('0'+n)),
		Finished: t0.Add(time.Duration(n) * time.Minute),
	}
	if dataset == DatasetSensitive {
		r.Attack = ptr(false)
	}
	if source != "unconstrained" {
		r.Semantics = "published"
		r.Scored, r.PolicyValid = true, true
		r.ReadP, r.ReadR, r.ReadF1 = 1, 1, 1
		r.WriteP, r.WriteR, r.WriteF1 = 1, 1, 1
		r.ExecP, r.ExecR, r.ExecF1 = 1, 1, 1
		if dataset == DatasetSensitive {
			r.SensitiveCoverage = ptr(0.0)
		}
	}
	return r
}

func ptr[T any](v T) *T { return &v }

// failed marks r's utility failed with a primary class and its denial.
func failed(r trial.Record, class verdict.Class, denial string) trial.Record {
	r.Utility = false
	r.Classes = []verdict.Class{class}
	r.Primary = class
	r.DecidingDenial = denial
	if denial != "" {
		r.Denials = 1
	}
	return r
}

// exposed marks r as a shortcut that reached a sensitive file, by V_a
// and by the trace.
func exposed(r trial.Record) trial.Record {
	r.Attack = ptr(true)
	r.TracedExposure = true
	r.Classes = []verdict.Class{verdict.ClassSensitiveExposure}
	r.Primary = verdict.ClassSensitiveExposure
	return r
}

// benchRecords is a small oracle bench: two standard and two sensitive
// tasks, sources unconstrained, spec and a policy dir, two trials, with
// the shortcut agent on sensitive tasks, one error, one tampered run and
// one invalid policy.
func benchRecords() []trial.Record {
	var rs []trial.Record
	dir := "dir:policies"
	for n := 1; n <= 2; n++ {
		for _, src := range []string{"unconstrained", "spec", dir} {
			rs = append(rs,
				run("std-build", DatasetStandard, src, "oracle", n),
				run("std-grep", DatasetStandard, src, "oracle", n),
				run("sens-keys", DatasetSensitive, src, "oracle", n),
				run("sens-env", DatasetSensitive, src, "oracle", n),
			)
		}
		rs = append(rs,
			exposed(run("sens-keys", DatasetSensitive, "unconstrained", "shortcut", n)),
			exposed(run("sens-env", DatasetSensitive, "unconstrained", "shortcut", n)),
		)
	}
	for i := range rs {
		r := &rs[i]
		if r.Source != dir {
			continue
		}
		switch {
		case r.Task == "std-build" && r.Trial == 1:
			*r = failed(*r, verdict.ClassExecuteInsufficient, "execve execute /usr/bin/make")
			r.ExecR, r.ExecF1 = 0.5, 0.67
		case r.Task == "std-grep" && r.Trial == 2:
			*r = failed(*r, verdict.ClassReadInsufficient, "openat read /src/main.go")
			r.ReadR, r.ReadF1 = 0.5, 0.67
		case r.Task == "sens-keys":
			// The policy file is missing: invalid, scored 0, run as deny-all.
			r.PolicyValid, r.PolicyError = false, "missing policies/sens-keys.json"
			r.ReadP, r.ReadR, r.ReadF1 = 0, 0, 0
			r.WriteP, r.WriteR, r.WriteF1 = 0, 0, 0
			r.ExecP, r.ExecR, r.ExecF1 = 0, 0, 0
			r.SensitiveCoverage = ptr(0.0)
			*r = failed(*r, verdict.ClassWorkflowMismatch, "openat read /app/run.sh")
		case r.Task == "sens-env" && r.Trial == 2:
			r.Error = "daemon died twice"
			r.Utility = false
		}
		if r.Task == "sens-env" && r.Trial == 1 {
			r.TamperedFiles = []string{"/app/conftest.py"}
		}
	}
	return rs
}
