package viewer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"

	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/tasks"
	"github.com/authbench/authbench/trial"
)

// Files of a trial directory the run page reads (bench's trial layout).
const (
	fileTrialResult = "result.json"
	fileTaskResult  = "authbench/result.json"
	filePolicy      = "authbench/policy.json"
	filePlan        = "authbench/plan.json"
	fileEvents      = "authbench/events.jsonl"
	fileNetwork     = "authbench/network.jsonl"
	fileTrajectory  = "agent/trajectory.json"
	// fileGenTrajectory is a model generator's (runapi.GenerationArtifacts).
	fileGenTrajectory = "generation/trajectory.json"
	fileAgentStdout   = "agent/stdout.txt"
	fileAgentStderr   = "agent/stderr.txt"
	fileUtilityLog    = "verifier/utility.log"
	fileAttackLog     = "verifier/attack.log"
)

// Size bounds of what a page reads of one file: a longer JSON document is
// refused (it cannot be shown cut), a longer log is cut with a marker.
const (
	maxJSONBytes = 16 << 20
	maxLogBytes  = 1 << 20
	// maxEventBytes bounds how much of an event log a search scans.
	maxEventBytes = 512 << 20
)

// runFileNames are the files of a trial that a run page shows, with the
// bound each is read with.
var runFileNames = []struct {
	name  string
	limit int64
}{
	{fileTrialResult, maxJSONBytes}, {fileTaskResult, maxJSONBytes}, {filePolicy, maxJSONBytes},
	{filePlan, maxJSONBytes}, {fileNetwork, maxJSONBytes}, {fileTrajectory, maxJSONBytes}, {fileGenTrajectory, maxJSONBytes},
	{fileAgentStdout, maxLogBytes}, {fileAgentStderr, maxLogBytes},
	{fileUtilityLog, maxLogBytes}, {fileAttackLog, maxLogBytes},
}

// File is what was read of one file: its bytes (at most Limit), whether
// it was cut, or why it could not be read (Missing: it is not there).
type File struct {
	Data    []byte
	Cut     bool
	Missing bool
	Err     string
}

// RunFiles are the files of one run that its page shows, by trial path
// (the spec under specKey).
type RunFiles map[string]File

// specKey is where RunFiles holds the task's spec.
const specKey = "spec"

// readFile reads rel under d as File: without following a link, only a
// regular file (a FIFO or a device is refused before it is opened), at
// most limit bytes (one more is read to tell a cut).
func readFile(d *safefile.Dir, rel string, limit int64) File {
	data, err := d.ReadFileLimit(rel, limit+1)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return File{Missing: true}
	case err != nil:
		return File{Err: err.Error()}
	case int64(len(data)) > limit:
		return File{Data: data[:limit], Cut: true}
	}
	return File{Data: data}
}

// ReadRunFiles reads the files of the run r from the out dir out, and its
// task's spec from the task directory its result.json names. A file that
// cannot be read has its error in place of its bytes.
func ReadRunFiles(out *safefile.Dir, r *trial.Record) RunFiles {
	files := RunFiles{}
	for _, f := range runFileNames {
		files[f.name] = readFile(out, path.Join(r.Dir, f.name), f.limit)
	}
	files[specKey] = readSpec(files[fileTrialResult])
	return files
}

// readSpec reads the spec of the task that the trial result res names.
func readSpec(res File) File {
	if res.Data == nil || res.Cut {
		return File{Err: "the trial's result.json (which names the task) could not be read"}
	}
	var hr trial.HarborResult
	if err := json.Unmarshal(res.Data, &hr); err != nil {
		return File{Err: fmt.Sprintf("the trial's result.json: %v", err)}
	}
	if hr.TaskID.Path == "" {
		return File{Err: "the trial's result.json names no task directory"}
	}
	dir, err := safefile.OpenReadDir(hr.TaskID.Path)
	if err != nil {
		return File{Err: fmt.Sprintf("task directory %s: %v", hr.TaskID.Path, err)}
	}
	defer dir.Close()
	f := readFile(dir, tasks.FilePermissionSpec, maxJSONBytes)
	if f.Missing {
		f.Err = fmt.Sprintf("%s has no %s", hr.TaskID.Path, tasks.FilePermissionSpec)
	}
	return f
}
