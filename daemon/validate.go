package daemon

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/authbench/authbench/daemon/work"
	"github.com/authbench/authbench/runapi"
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
	state, err := k.validate(&p.req, checkEnv{peer: peer, trusted: trusted, work: w})
	if err != nil {
		return nil, err
	}
	p.state = state
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
