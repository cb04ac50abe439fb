package runapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// RunTask submits a task run to api and waits for its end. The error is
// for a run that could not be submitted or followed; a run carried out
// with any verdict returns its record, whose TaskResult says how it went.
func RunTask(ctx context.Context, api API, req *RunRequest) (*Run, error) {
	if req.Task == nil {
		return nil, fmt.Errorf("run task: the request names no task")
	}
	return submitAndWait(ctx, api, req, "run task "+req.Task.Dir)
}

// submitAndWait submits req to api and waits for its end (WaitOrCancel);
// what names the run in the error of a wait that failed.
func submitAndWait(ctx context.Context, api API, req *RunRequest, what string) (*Run, error) {
	run, err := api.Submit(ctx, req)
	if err != nil {
		return nil, err
	}
	final, err := WaitOrCancel(ctx, api, run.ID)
	if err != nil {
		return final, fmt.Errorf("%s: wait for run %s: %w", what, run.ID, err)
	}
	return final, nil
}

// ReadLog reads the whole of one of a finished run's files (see OpenLog
// for the names); a file the run did not make reads as empty.
func ReadLog(ctx context.Context, api API, id, log string) ([]byte, error) {
	rc, err := api.OpenLog(ctx, id, log, false)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		return nil, fmt.Errorf("read %s of run %s: %w", log, id, err)
	}
	return data, nil
}

// RunGenerate submits a generation to api and waits for its end. The
// error is for a generation that could not be submitted or followed.
func RunGenerate(ctx context.Context, api API, req *RunRequest) (*Run, error) {
	if req.Generate == nil {
		return nil, fmt.Errorf("generate: the request names no generation")
	}
	return submitAndWait(ctx, api, req, "generate "+req.Generate.Dir)
}

// cancelGrace bounds how long WaitOrCancel waits for a cancelled run to
// end.
const cancelGrace = time.Minute

// WaitOrCancel waits for run id to end. When ctx ends first (the caller
// was interrupted: SIGINT, SIGTERM), the run is cancelled and waited for,
// so a run through a socket ends with its caller as an embedded run ends
// with its process; the error is then ctx's cause.
func WaitOrCancel(ctx context.Context, api API, id string) (*Run, error) {
	final, err := api.Wait(ctx, id)
	if err == nil || ctx.Err() == nil {
		return final, err
	}
	cctx, cancel := context.WithTimeout(context.Background(), cancelGrace)
	defer cancel()
	if _, cerr := api.Cancel(cctx, id); cerr != nil {
		return nil, errors.Join(context.Cause(ctx), fmt.Errorf("cancel run %s: %w", id, cerr))
	}
	final, werr := api.Wait(cctx, id)
	if werr != nil {
		return nil, errors.Join(context.Cause(ctx), fmt.Errorf("wait for cancelled run %s: %w", id, werr))
	}
	return final, context.Cause(ctx)
}
