package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"syscall"
)

// InitStage names the step of sandbox-init that failed.
type InitStage string

// The steps of sandbox-init, in the order they run (see doc.go).
const (
	// StageSpec: reading or validating the spec.
	StageSpec InitStage = "spec"
	// StageMount: the private mount namespace and hidden paths.
	StageMount InitStage = "mount"
	// StageLandlock: enforcing the Landlock plan.
	StageLandlock InitStage = "landlock"
	// StageCapabilities: reducing the capability sets.
	StageCapabilities InitStage = "capabilities"
	// StageIdentity: changing uid and gid.
	StageIdentity InitStage = "identity"
	// StageChdir: entering Launch.Dir as the final identity.
	StageChdir InitStage = "chdir"
	// StageLookup: searching a bare program name in PATH.
	StageLookup InitStage = "lookup"
	// StageNoNewPrivs: setting no_new_privs.
	StageNoNewPrivs InitStage = "no_new_privs"
	// StageSeccomp: installing the seccomp filter.
	StageSeccomp InitStage = "seccomp"
	// StageExec: executing the program.
	StageExec InitStage = "exec"
)

// Shell exit statuses of a command that did not run.
const (
	// ExitNotFound: the command was not found.
	ExitNotFound = 127
	// ExitNotExecutable: the command was found but could not be executed.
	ExitNotExecutable = 126
	// ExitNotConfined: the command could not be started confined.
	ExitNotConfined = 125
)

// InitError is a failure of sandbox-init (or Exec) before the command
// ran. sandbox-init sends it to its parent as one JSON object on the
// error pipe; Gate.Release decodes it.
type InitError struct {
	// Stage is the step that failed.
	Stage InitStage `json:"stage"`
	// Errno is the system error, 0 when the failure is not an errno.
	Errno syscall.Errno `json:"errno,omitempty"`
	// Path is the file or directory concerned, if any.
	Path string `json:"path,omitempty"`
	// Msg describes the failure.
	Msg string `json:"msg"`
	// Hint explains a likely cause.
	Hint string `json:"hint,omitempty"`
}

// Error formats the failure as "sandbox-init: STAGE [PATH]: MSG (HINT)".
func (e *InitError) Error() string {
	var b strings.Builder
	b.WriteString("sandbox-init: ")
	b.WriteString(string(e.Stage))
	if e.Path != "" {
		b.WriteString(" " + e.Path)
	}
	b.WriteString(": " + e.Msg)
	if e.Hint != "" {
		b.WriteString(" (" + e.Hint + ")")
	}
	return b.String()
}

// Unwrap returns the Errno when there is one, so that
// errors.Is(err, unix.ENOENT) works.
func (e *InitError) Unwrap() error {
	if e.Errno == 0 {
		return nil
	}
	return e.Errno
}

// ShellStatus is the exit status a shell would report: 127 when the
// program was not found, 126 when it was found but could not be
// executed, 125 when the command could not be confined.
func (e *InitError) ShellStatus() int {
	if e.Stage != StageExec && e.Stage != StageLookup {
		return ExitNotConfined
	}
	if e.Errno == syscall.ENOENT {
		return ExitNotFound
	}
	return ExitNotExecutable
}

// initError makes an InitError of stage from err, keeping its errno.
func initError(stage InitStage, path string, err error) *InitError {
	var ie *InitError
	if errors.As(err, &ie) {
		return ie
	}
	e := &InitError{Stage: stage, Path: path, Msg: err.Error()}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		e.Errno = errno
	}
	return e
}

// encodeInitError is the one report sandbox-init writes before it gives up.
func encodeInitError(e *InitError) []byte {
	data, err := json.Marshal(e)
	if err != nil { // cannot happen: only strings and an integer
		return []byte(fmt.Sprintf(`{"stage":%q,"msg":%q}`, StageSpec, e.Error()))
	}
	return data
}

// decodeInitError reads sandbox-init's report; a report that is not one
// InitError (garbled, or written by something else) becomes a StageSpec
// error quoting the raw bytes.
func decodeInitError(raw []byte) *InitError {
	var e InitError
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err == nil && e.Stage != "" && e.Msg != "" && !dec.More() {
		return &e
	}
	return &InitError{Stage: StageSpec, Msg: fmt.Sprintf("malformed report from sandbox-init: %q", raw)}
}
