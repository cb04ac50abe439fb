package generate

import (
	"fmt"
	"strings"
	"syscall"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/taskrun/explore"
)

// judgeExploration fills rec from a cmd: generator's exploration: the
// answer (the output file when written, else stdout) and whether it is a
// valid policy, with the reason when not.
func judgeExploration(rec *runapi.GenerationRecord, x *explore.Exploration, timeout string, spec *policy.Spec) {
	code := x.ExitCode
	rec.ExitCode = &code
	rec.TimedOut, rec.DurationS, rec.SetupMS = x.TimedOut, x.DurationS, x.SetupMS
	rec.Executable, rec.Denials = x.Executable, x.Denials
	rec.Traced, rec.Events, rec.LostEvents = x.Traced, x.Events, x.LostEvents
	if x.Traced {
		rec.FilesRead, rec.FilesReadDropped, rec.ToolCalls = x.FilesRead, x.FilesReadDropped, x.Execs
	}
	switch {
	case strings.TrimSpace(string(x.Output)) != "":
		rec.PolicyRaw, rec.AnswerFrom = string(x.Output), FromOutputFile
	default:
		rec.PolicyRaw, rec.AnswerFrom = string(x.Stdout), FromStdout
	}
	var reasons []string
	switch {
	case x.TimedOut:
		reasons = append(reasons, "the generator timed out after "+timeout)
	case x.StartError != "":
		reasons = append(reasons, "the generator could not start: "+x.StartError)
	case x.ExitCode > 128 && x.ExitCode < 128+65:
		reasons = append(reasons, fmt.Sprintf("the generator was killed by signal %d (%s)", x.ExitCode-128, syscall.Signal(x.ExitCode-128)))
	case x.ExitCode != 0:
		reasons = append(reasons, fmt.Sprintf("the generator exited with status %d", x.ExitCode))
	}
	if x.OutputTooLarge {
		reasons = append(reasons, fmt.Sprintf("the output file is larger than %d bytes", policy.MaxDocumentBytes))
	}
	if rec.AnswerFrom == FromStdout && x.StdoutDropped > 0 {
		reasons = append(reasons, fmt.Sprintf("the answer is larger than %d bytes: truncated (%d bytes dropped)", explore.MaxGeneratorStdout, x.StdoutDropped))
	}
	pol, perr := policy.ParseAnswerFor(rec.PolicyRaw, spec)
	if len(reasons) == 0 && perr != nil {
		if strings.TrimSpace(rec.PolicyRaw) == "" {
			reasons = append(reasons, "the generator gave no answer (empty output file and stdout)")
		} else {
			reasons = append(reasons, "invalid policy: "+perr.Error())
		}
	}
	if len(reasons) > 0 {
		rec.Valid, rec.Reason = false, strings.Join(reasons, "; ")
		return
	}
	if err := setPolicy(rec, pol); err != nil {
		rec.Valid, rec.Reason = false, err.Error()
	}
}

// acceptBuiltin fills rec with a baseline's policy.
func acceptBuiltin(rec *runapi.GenerationRecord, pol *policy.Policy) error {
	data, err := pol.MarshalJSON()
	if err != nil {
		return err
	}
	rec.PolicyRaw, rec.AnswerFrom = string(data)+"\n", FromBuiltin
	return setPolicy(rec, pol)
}
