package runapi

import (
	"context"
	"errors"
)

// ErrorKind names the kind of failure that kept a run from being carried
// out: a record's error_kind beside its error message, the bench row's,
// and Harbor's exception_info.exception_type of a trial. It is filled
// where the failure happens (WithKind) and read with errors.As (KindOf),
// so that it survives any wrapping.
type ErrorKind string

// Error kinds.
const (
	// ErrorTask: the task or the request cannot be run as given (no
	// spec, an unknown agent, a missing model configuration).
	ErrorTask ErrorKind = "task"
	// ErrorBuild: the task's image could not be built or pulled.
	ErrorBuild ErrorKind = "build"
	// ErrorRootfs: the run's copy-on-write rootfs could not be made or
	// prepared.
	ErrorRootfs ErrorKind = "rootfs"
	// ErrorIdentity: the agent's user or group is not in the image, or its
	// capabilities cannot be given.
	ErrorIdentity ErrorKind = "identity"
	// ErrorNetwork: the run's network (namespace, proxy) could not be set
	// up.
	ErrorNetwork ErrorKind = "network"
	// ErrorSidecar: a compose service of the task did not start.
	ErrorSidecar ErrorKind = "sidecar"
	// ErrorConfine: the policy could not be compiled into a plan or
	// sandbox-init could not confine the agent (Landlock, seccomp,
	// privileges).
	ErrorConfine ErrorKind = "confine"
	// ErrorAgent: the agent could not be started or followed.
	ErrorAgent ErrorKind = "agent"
	// ErrorAgentTimeout: the run's time ran out before its verifiers.
	ErrorAgentTimeout ErrorKind = "agent_timeout"
	// ErrorCancelled: the run was cancelled (or its daemon stopped).
	ErrorCancelled ErrorKind = "cancelled"
	// ErrorVerifier: a verifier could not give a verdict.
	ErrorVerifier ErrorKind = "verifier"
	// ErrorToolboxDied: a model agent's tool process died for good.
	ErrorToolboxDied ErrorKind = "toolbox_died"
	// ErrorModel: a model agent's endpoint failed.
	ErrorModel ErrorKind = "model"
	// ErrorLimits: the run went over one of the daemon's limits.
	ErrorLimits ErrorKind = "limits"
	// ErrorDaemon: the daemon could not be reached, refused the request,
	// or the run ended without a record.
	ErrorDaemon ErrorKind = "daemon"
	// ErrorInternal: any other failure.
	ErrorInternal ErrorKind = "internal"
	// ErrorRecording: the trace source's recorder refused the task's
	// recording (the oracle broken or not deterministic, a spec that
	// cannot be made sufficient without granting a sensitive file, ...):
	// there is no valid recorded policy to run.
	ErrorRecording ErrorKind = "recording"
)

// KindError is an error of a known kind.
type KindError struct {
	Kind ErrorKind
	Err  error
}

func (e *KindError) Error() string { return e.Err.Error() }

// Unwrap returns the error of that kind.
func (e *KindError) Unwrap() error { return e.Err }

// WithKind marks err as of kind; nil stays nil, and an error that already
// has a kind keeps it (the innermost failure decides).
func WithKind(kind ErrorKind, err error) error {
	if err == nil {
		return nil
	}
	var ke *KindError
	if errors.As(err, &ke) {
		return err
	}
	return &KindError{Kind: kind, Err: err}
}

// KindOf is the kind of err: the innermost kind given with WithKind; a
// context's deadline or cancellation when nothing marked it; else
// ErrorInternal. It is "" for nil.
func KindOf(err error) ErrorKind {
	var ke *KindError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &ke):
		return ke.Kind
	case errors.Is(err, context.DeadlineExceeded):
		return ErrorAgentTimeout
	case errors.Is(err, context.Canceled):
		return ErrorCancelled
	}
	return ErrorInternal
}
