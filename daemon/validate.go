package daemon

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/authbench/authbench/agent/modelconfig"
	"github.com/authbench/authbench/daemon/work"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/sandbox"
)

// Request limits.
const (
	maxArgs        = 4096
	maxEnv         = 4096
	maxStringBytes = 128 << 10
	nobodyID       = 65534
)

// decodeRequest parses a POST /v1/runs body strictly
// (runapi.DecodeRunRequest): one kind member, no unknown field in the
// request or its member, no trailing data; a refusal names the field.
func decodeRequest(body []byte) (*runapi.RunRequest, error) {
	req, err := runapi.DecodeRunRequest(body)
	if err != nil {
		return nil, requestError(err)
	}
	return req, nil
}

// requestError is a runapi.FieldError as the daemon's RequestError (a
// 400 naming the field); any other error is returned as it is.
func requestError(err error) error {
	var fe *runapi.FieldError
	if errors.As(err, &fe) {
		return &RequestError{Field: fe.Field, Msg: fe.Msg}
	}
	return err
}

// prepared is a validated request with its parsed parts.
type prepared struct {
	// req is the request as recorded: the caller's, with the defaults
	// applied and keys redacted (its member is the run's own copy).
	req  runapi.RunRequest
	kind runKind
	// policy is π: a command's, or a task run's of policy source
	// "policy"; nil for none.
	policy   *policy.Policy
	baseline policy.Baseline
	uid, gid uint32
	seccomp  *sandbox.Filter // nil: no filter
	// planOptions choose how the policy is compiled (semantics, symlinks).
	planOptions policy.PlanOptions
	// task is the task of a task run, a generation or a task image
	// build (nil for a command, or a base's build).
	task work.Task
	// model is an openai:MODEL task agent's or generator's model, with
	// its API key; the recorded request's, at modelAt, has none.
	// modelField names it in refusals.
	model      *modelconfig.Config
	modelAt    **modelconfig.Config
	modelField string
	// caps are a task run's agent capabilities (nil: the task's).
	caps []string
	// modelAsked is the model config as the caller sent it, before its
	// defaults (limitMemberModel).
	modelAsked modelconfig.Config
}

// validate checks req for caller peer and resolves defaults: the union
// and the common fields once, then its kind's member (runKind.validate);
// trusted are the task roots in which a caller that is not root may ask
// for task runs; w loads tasks and checks their names (nil: only
// commands run).
func validate(req *runapi.RunRequest, peer Peer, trusted []string, w work.Kinds) (*prepared, error) {
	k, err := kindOf(req)
	if err != nil {
		return nil, err
	}
	if err := req.Common.Check(); err != nil {
		return nil, requestError(err)
	}
	p := &prepared{req: *req, kind: k}
	if err := k.validate(p, checkEnv{peer: peer, trusted: trusted, work: w}); err != nil {
		return nil, err
	}
	return p, nil
}

// needWork refuses a kind that needs task work (field names its member)
// in a daemon without it.
func (c checkEnv) needWork(field string) error {
	if c.work == nil {
		return badField(field, "%v", errNoTaskWork)
	}
	return nil
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

func checkStrings(field string, list []string) error {
	for i, s := range list {
		if len(s) > maxStringBytes {
			return badField(indexField(field, i), "is %d bytes long (at most %d)", len(s), maxStringBytes)
		}
		if strings.IndexByte(s, 0) >= 0 {
			return badField(indexField(field, i), "contains a NUL byte")
		}
	}
	return nil
}

func indexField(field string, i int) string {
	return field + "[" + strconv.Itoa(i) + "]"
}
