package daemon

import (
	"context"
	"fmt"
	"io"
)

// RunTask submits a task run to api and waits for its end. The error is
// for a run that could not be submitted or followed; a run carried out
// with any verdict returns its record, whose TaskResult says how it went.
func RunTask(ctx context.Context, api API, req *RunRequest) (*Run, error) {
	if req.Task == nil {
		return nil, fmt.Errorf("run task: the request names no task")
	}
	run, err := api.Submit(ctx, req)
	if err != nil {
		return nil, err
	}
	final, err := WaitOrCancel(ctx, api, run.ID)
	if err != nil {
		return final, fmt.Errorf("run task %s: wait for run %s: %w", req.Task.Dir, run.ID, err)
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
