package bench

import (
	"context"

	"github.com/authbench/authbench/daemon"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/tasks"
)

// TraceRecorder records the trace source's policy of a task (the
// required set of a spec recorded from a traced oracle run); nil while
// no recorder is built in, and the trace source is then refused.
var TraceRecorder func(ctx context.Context, api daemon.API, t *tasks.Task) (*policy.Policy, error)
