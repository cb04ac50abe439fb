package generate

import (
	"fmt"
	"strings"
	"syscall"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/taskrun"
)

// ParseAnswer parses a generator's answer with the scorer's parser. The
// answer is the JSON object alone (surrounding white space is allowed);
// else a single fenced ```json block holding it, as models often answer;
// else the object starting on the last line that begins with "{" (after
// a program's chatter). The error is the parser's message on the answer
// as given.
func ParseAnswer(answer string) (*policy.Policy, error) {
	pol, err := policy.ParsePolicy([]byte(strings.TrimSpace(answer)), "answer")
	if err == nil {
		return pol, nil
	}
	if block, ok := fencedJSON(answer); ok {
		if p, ferr := policy.ParsePolicy([]byte(block), "answer"); ferr == nil {
			return p, nil
		}
	}
	if i := strings.LastIndex(answer, "\n{"); i >= 0 {
		if p, ferr := policy.ParsePolicy([]byte(strings.TrimSpace(answer[i+1:])), "answer"); ferr == nil {
			return p, nil
		}
	}
	return nil, err
}

// fencedJSON returns the content of the only ``` fenced block of s.
func fencedJSON(s string) (string, bool) {
	parts := strings.Split(s, "```")
	if len(parts) != 3 {
		return "", false
	}
	body := parts[1]
	if i := strings.IndexByte(body, '\n'); i >= 0 && !strings.Contains(body[:i], "{") {
		body = body[i+1:] // the info string ("json")
	}
	return strings.TrimSpace(body), true
}

// judgeExploration fills rec from a cmd: generator's exploration: the
// answer (the output file when written, else stdout) and whether it is a
// valid policy, with the reason when not.
func judgeExploration(rec *Record, x *taskrun.Exploration, timeout string) {
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
		reasons = append(reasons, fmt.Sprintf("the answer is larger than %d bytes: truncated (%d bytes dropped)", taskrun.MaxGeneratorStdout, x.StdoutDropped))
	}
	pol, perr := ParseAnswer(rec.PolicyRaw)
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
	if err := rec.setPolicy(pol); err != nil {
		rec.Valid, rec.Reason = false, err.Error()
	}
}

// acceptBuiltin fills rec with a baseline's policy.
func acceptBuiltin(rec *Record, pol *policy.Policy) error {
	data, err := pol.Permissions.MarshalJSON()
	if err != nil {
		return err
	}
	rec.PolicyRaw, rec.AnswerFrom = string(data)+"\n", FromBuiltin
	return rec.setPolicy(pol)
}
