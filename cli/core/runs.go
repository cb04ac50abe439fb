package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/authbench/authbench/daemon"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
)

// daemonDialTimeout bounds the connection to the daemon's socket that
// decides whether a command goes through it (as daemon.SocketAlive).
const daemonDialTimeout = time.Second

// DaemonClient returns a client of the daemon when one answers on the
// socket, else nil (the command then runs embedded). The connection that
// found it carries the client's first request; Close a client that may
// make none.
func (a *App) DaemonClient() *runapi.Client {
	if a.Socket == "" {
		return nil
	}
	c, err := runapi.DialClient(a.Socket, daemonDialTimeout)
	if err != nil {
		return nil
	}
	a.Log.Debug("using the daemon", zap.String("socket", a.Socket))
	return c
}

// RunAPI is where `exec` and `trace` run their command: the daemon on
// the socket when one listens, else a Manager embedded in this process.
// Either way the daemon package launches, confines, traces, kills and
// records the run.
type RunAPI struct {
	api    runapi.API
	local  *daemon.Local  // nil through a socket
	client *runapi.Client // nil when embedded
	close  func()
	// plan is the plan of the request, compiled by the command to check
	// it; an embedded Manager enforces it rather than compile it again.
	plan *policy.Plan
}

// Close closes the connection, or shuts the embedded daemon down.
func (rt *RunAPI) Close() { rt.close() }

// OpenRunAPI connects to the daemon or embeds one; the embedded one loads
// the tracer (with a ring of ringBytes, 0 for the default) only when the
// run is traced.
func (a *App) OpenRunAPI(traced bool, ringBytes int) (*RunAPI, error) {
	if c := a.DaemonClient(); c != nil {
		return &RunAPI{api: c, client: c, close: c.Close}, nil
	}
	e, err := a.embedRuns(traced, ringBytes)
	if err != nil {
		return nil, err
	}
	return &RunAPI{api: e.Local, local: e.Local, close: func() { _ = e.Close(a.Log) }}, nil
}

// SubmittedRun is one run, shown as if it ran here: its output streams to
// stdout and stderr (an embedded run's tree writes there itself), and its
// exit status becomes ours.
type SubmittedRun struct {
	a   *App
	rt  *RunAPI
	run *runapi.Run
}

// ID is the run's id.
func (r *SubmittedRun) ID() string { return r.run.ID }

// OpenEvents opens the run's event log as it is.
func (r *SubmittedRun) OpenEvents() (io.ReadCloser, error) {
	return r.rt.api.OpenLog(context.Background(), r.run.ID, runapi.LogEvents, false)
}

// submit starts req; a request the daemon rejects as bad is a usage
// error, one it refuses otherwise could not be run (125).
func (a *App) submit(rt *RunAPI, req *runapi.RunRequest, sigs <-chan os.Signal) (*SubmittedRun, error) {
	ctx := context.Background()
	var run *runapi.Run
	var err error
	if rt.local != nil {
		run, err = rt.local.SubmitAttached(ctx, req, &daemon.Attachment{Stdin: os.Stdin, Stdout: a.Stdout, Stderr: a.Stderr, Signals: sigs, Plan: rt.plan})
	} else {
		run, err = rt.client.SubmitStatus(ctx, req) // only its id is needed
	}
	if err != nil {
		if IsBadRequest(err) {
			return nil, Usage(err)
		}
		return nil, &ExitError{Code: ExitSandboxFailure, Err: err}
	}
	return &SubmittedRun{a: a, rt: rt, run: run}, nil
}

// RunRequest submits req and waits for its end (see wait).
func (a *App) RunRequest(rt *RunAPI, req *runapi.RunRequest, events io.Writer) (*SubmittedRun, *runapi.Run, error) {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	defer signal.Stop(sigs)
	r, err := a.submit(rt, req, sigs)
	if err != nil {
		return nil, nil, err
	}
	final, err := r.wait(events, sigs)
	return r, final, err
}

// wait streams the run's output (unless attached), and its event log to
// events unless that is nil, until it ends, and returns its final record.
// Signals reach the tree: through a socket they are forwarded by the
// daemon (forwardSignals); embedded, the run forwards them itself. The event log streams while the
// run runs, so little is left to copy when it ends.
func (r *SubmittedRun) wait(events io.Writer, sigs <-chan os.Signal) (*runapi.Run, error) {
	ctx := context.Background()
	api := r.rt.api
	done := make(chan struct{})
	defer close(done)
	if c := r.rt.client; c != nil {
		go r.forwardSignals(ctx, c, sigs, done)
	}
	type stream struct {
		log string
		w   io.Writer
	}
	var logs []stream
	if r.rt.local == nil {
		logs = append(logs, stream{runapi.LogStdout, r.a.Stdout}, stream{runapi.LogStderr, r.a.Stderr})
	}
	if events != nil {
		logs = append(logs, stream{runapi.LogEvents, events})
	}
	// Untraced through a daemon, only the run's status is needed at its
	// end (ExitStatus): it comes after stdout, in the stream's trailer.
	statusAfterStdout := r.rt.client != nil && events == nil
	var status func() (*runapi.Run, error)
	var wg sync.WaitGroup
	errs := make([]error, len(logs))
	for i, s := range logs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var rc io.ReadCloser
			var err error
			if statusAfterStdout && s.log == runapi.LogStdout {
				rc, status, err = r.rt.client.FollowLogStatus(ctx, r.run.ID, s.log)
			} else {
				rc, err = api.OpenLog(ctx, r.run.ID, s.log, true)
			}
			if err != nil {
				errs[i] = err
				return
			}
			defer rc.Close()
			_, errs[i] = io.Copy(s.w, rc)
		}()
	}
	wg.Wait()
	var final *runapi.Run
	var err error
	switch {
	case r.rt.local != nil:
		final, err = api.Wait(ctx, r.run.ID)
	case statusAfterStdout:
		if status != nil {
			if st, serr := status(); serr == nil {
				final = st
			}
		}
		if final == nil { // a daemon that sends no trailer
			final, err = r.rt.client.GetStatus(ctx, r.run.ID) // its logs ended with it
		}
	default:
		final, err = api.Get(ctx, r.run.ID) // the trace's summary reads the whole record
	}
	if err != nil {
		return nil, err
	}
	return final, errors.Join(errs...)
}

// cancelAfterSignals is how many signals a run through a socket gets
// forwarded before the next one cancels it (a command that ignores
// SIGINT can still be stopped from the terminal).
const cancelAfterSignals = 2

// forwardSignals passes the signals this process receives on to the run's
// tree through the daemon, until done; the third one cancels the run.
func (r *SubmittedRun) forwardSignals(ctx context.Context, c *runapi.Client, sigs <-chan os.Signal, done <-chan struct{}) {
	for n := 0; ; n++ {
		var sig os.Signal
		select {
		case sig = <-sigs:
		case <-done:
			return
		}
		ssig, ok := sig.(syscall.Signal)
		if n < cancelAfterSignals && ok {
			err := c.Signal(ctx, r.run.ID, ssig)
			if err == nil {
				continue
			}
			r.a.Log.Warn("forward signal to run; cancelling it", zap.String("signal", sig.String()), zap.Error(err))
		}
		if _, err := c.Cancel(ctx, r.run.ID); err != nil {
			r.a.Log.Warn("cancel run", zap.Error(err))
		}
		return
	}
}

// ExitStatus turns a finished run into our exit status, the same for
// embedded and daemon runs: the run's ExitStatus (the command's status;
// 127 not found, 126 not executable, 125 could not be confined).
func (r *SubmittedRun) ExitStatus(final *runapi.Run, verb string) error {
	code := ExitSandboxFailure
	if final.ExitStatus != nil {
		code = *final.ExitStatus
	} else if final.ExitCode != nil {
		code = *final.ExitCode // a daemon older than exit_status
	}
	if final.Error == "" && final.ExitCode != nil {
		r.a.ExitCode = code
		return nil
	}
	if len(final.StillRunning) > 0 {
		fmt.Fprintf(r.a.Stderr, "%s: run %s cut short with %d processes still running (killed):\n", verb, final.ID, len(final.StillRunning))
		for _, p := range final.StillRunning {
			fmt.Fprintf(r.a.Stderr, "  pid %d (ppid %d) %s: %s\n", p.Pid, p.PPid, p.Comm, p.Cmdline)
		}
	}
	return &ExitError{Code: code, Err: fmt.Errorf("%s: run %s %s: %s", verb, final.ID, final.State, final.Error)}
}

// CopyEvents copies the run's event log to w.
func (r *SubmittedRun) CopyEvents(w io.Writer) error {
	rc, err := r.OpenEvents()
	if err != nil {
		return err
	}
	defer rc.Close()
	_, err = io.Copy(w, rc)
	return err
}

// ReadFileArg returns the contents of a file named by a flag, as JSON.
func ReadFileArg(flag, file string) (json.RawMessage, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, UsageErrorf("%s: %v", flag, err)
	}
	return data, nil
}

// RequestIdentity returns the uid/gid fields of a request: unset means
// the caller's own, and running as root is asked for explicitly when
// that is what the caller does.
func RequestIdentity(uid, gid int) (*uint32, *uint32, bool) {
	if uid < 0 {
		return nil, nil, os.Geteuid() == 0
	}
	u, g := uint32(uid), uint32(gid)
	return &u, &g, uid == 0
}
