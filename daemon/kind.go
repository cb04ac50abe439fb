package daemon

import (
	"context"
	"time"

	"github.com/authbench/authbench/daemon/work"
	"github.com/authbench/authbench/runapi"
)

// runKind is one kind of run, the daemon's side of one member of the
// request union (runapi.RunRequest): how its member is checked, how the
// run is carried out, and what the Manager's common lifecycle needs to
// know of it. One type per kind, each in its own file (kind_exec.go,
// kind_task.go, kind_generate.go, kind_build.go), each with its own
// parsed state (prepared.go: execPrepared, taskPrepared, ...), which its
// validate returns and its execute reads; a fifth kind is one more type,
// its state type and its entry in runKinds, and adds no field to the
// shared prepared struct.
type runKind interface {
	// validate checks the request's member for the caller (the common
	// fields and the union are checked already), resolves its defaults
	// into req (the recorded request: the caller's, whose member
	// validate copies first, so that what it records as applied is the
	// run's own) and returns the kind's own parsed state.
	validate(req *runapi.RunRequest, c checkEnv) (kindState, error)
	// execute carries out the run of ar until it ends or ctx does.
	execute(ctx context.Context, m *Manager, ar *activeRun) outcome
	// defaultTimeout is the run's time when the request names none
	// (commandDefault: the daemon's default for commands).
	defaultTimeout(commandDefault time.Duration) time.Duration
	// signalable reports whether the run's tree takes forwarded signals
	// (POST /v1/runs/{id}/signal): only a command's root is ours to
	// signal; a task's agent is a container's init.
	signalable() bool
	// traced reports whether a run of req writes an event log (the
	// record of a run a dead daemon left counts the events that reached
	// it).
	traced(req *runapi.RunRequest) bool
	// usesRootfs reports whether the run lays a task rootfs (and
	// containers) down that a dead daemon's successor must clean up.
	usesRootfs() bool
	// artifacts are the files a run of this kind makes in its directory.
	artifacts() []runapi.Artifact
}

// checkEnv is what a kind's validate checks a request against: the
// caller, the task roots in which a caller that is not root may name
// tasks, and the work that loads tasks (nil: only commands run).
type checkEnv struct {
	peer    Peer
	trusted []string
	work    work.Kinds
}

// runKinds maps every kind of the request union to its type.
var runKinds = map[runapi.Kind]runKind{
	runapi.KindExec:     execKind{},
	runapi.KindTask:     taskKind{},
	runapi.KindGenerate: generateKind{},
	runapi.KindBuild:    buildKind{},
}

// kindOf is the runKind of req: exactly one member (else a
// *RequestError naming the field).
func kindOf(req *runapi.RunRequest) (runKind, error) {
	name, err := req.Kind()
	if err != nil {
		return nil, requestError(err)
	}
	k, ok := runKinds[name]
	if !ok {
		return nil, badField(string(name), "this daemon does not carry out %s runs", name)
	}
	return k, nil
}

// taskTimeout is the run's time of a kind that has its own timeouts (a
// task's agent and verifiers, a generator's) or takes its time (a build):
// only the bound on every run applies.
const taskTimeout = runapi.MaxTimeoutSeconds * time.Second

// kindName is the kind of req for logs ("" when it has none).
func kindName(req *runapi.RunRequest) string {
	k, _ := req.Kind()
	return string(k)
}
