package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"go.uber.org/zap"

	"github.com/authbench/authbench/daemon"
	"github.com/authbench/authbench/sandbox"
	"github.com/authbench/authbench/tracer"
)

// daemonClient returns a client of the daemon when one answers on the
// socket, else nil (the command then runs embedded).
func (a *app) daemonClient() *daemon.Client {
	if a.socket == "" || !daemon.SocketAlive(a.socket) {
		return nil
	}
	a.log.Debug("using the daemon", zap.String("socket", a.socket))
	return daemon.NewClient(a.socket)
}

// remoteRun is one run through the daemon, shown as if it ran here: its
// output streams to stdout and stderr, and its exit status becomes ours.
type remoteRun struct {
	a      *app
	client *daemon.Client
	run    *daemon.Run
}

// startRemote submits req; a request the daemon rejects as bad is a
// usage error.
func (a *app) startRemote(client *daemon.Client, req *daemon.RunRequest) (*remoteRun, error) {
	run, err := client.Submit(context.Background(), req)
	if err != nil {
		var ae *daemon.APIError
		if errors.As(err, &ae) && ae.Status == 400 {
			return nil, usageError(err)
		}
		return nil, &ExitError{Code: exitSandboxFailure, Err: err}
	}
	return &remoteRun{a: a, client: client, run: run}, nil
}

// wait streams the run's output, and its event log to events unless that
// is nil, until it ends (cancelling it on SIGINT or SIGTERM), and returns
// its final record. The event log streams while the run runs, so little
// is left to copy when it ends.
func (r *remoteRun) wait(events io.Writer) (*daemon.Run, error) {
	ctx := context.Background()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-sigs:
			if _, err := r.client.Cancel(ctx, r.run.ID); err != nil {
				r.a.log.Warn("cancel run", zap.Error(err))
			}
		case <-done:
		}
	}()
	type stream struct {
		log string
		w   io.Writer
	}
	logs := []stream{{"stdout", r.a.stdout}, {"stderr", r.a.stderr}}
	if events != nil {
		logs = append(logs, stream{"events", events})
	}
	var wg sync.WaitGroup
	errs := make([]error, len(logs))
	for i, s := range logs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rc, err := r.client.OpenLog(ctx, r.run.ID, s.log, true)
			if err != nil {
				errs[i] = err
				return
			}
			defer rc.Close()
			_, errs[i] = io.Copy(s.w, rc)
		}()
	}
	wg.Wait()
	final, err := r.client.Get(ctx, r.run.ID)
	if err != nil {
		return nil, err
	}
	return final, errors.Join(errs...)
}

// exitStatus turns a finished run into our exit status, as the embedded
// commands report it: the command's status, 127 when it was not found,
// 125 when it could not be started confined.
func (r *remoteRun) exitStatus(final *daemon.Run, verb string) error {
	if final.ExitCode != nil && final.Error == "" {
		r.a.exitCode = *final.ExitCode
		return nil
	}
	code := exitSandboxFailure
	switch {
	case final.ExitCode != nil:
		code = *final.ExitCode
	case strings.Contains(final.Error, "not found"), strings.Contains(final.Error, "no such file"):
		code = exitNotFound
	case strings.Contains(final.Error, "sandbox-init: exec "):
		code = exitNotExecutable
	}
	return &ExitError{Code: code, Err: fmt.Errorf("%s: run %s %s: %s", verb, final.ID, final.State, final.Error)}
}

// copyEvents copies the run's event log to w.
func (r *remoteRun) copyEvents(w io.Writer) error {
	rc, err := r.client.OpenLog(context.Background(), r.run.ID, "events", false)
	if err != nil {
		return err
	}
	defer rc.Close()
	_, err = io.Copy(w, rc)
	return err
}

// countEvents reads the run's event log into counts and returns its
// summary line.
func (r *remoteRun) countEvents(counts *tracer.Counts) (tracer.Summary, error) {
	rc, err := r.client.OpenLog(context.Background(), r.run.ID, "events", false)
	if err != nil {
		return tracer.Summary{}, err
	}
	defer rc.Close()
	var sum tracer.Summary
	sc := bufio.NewScanner(rc)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if strings.HasPrefix(string(line), `{"op":"summary"`) {
			if err := json.Unmarshal(line, &sum); err != nil {
				return sum, fmt.Errorf("event log summary: %w", err)
			}
			continue
		}
		if strings.HasPrefix(string(line), `{"op":"truncated"`) {
			continue // the daemon's output cap dropped events; the record counts them
		}
		var ev tracer.Event
		if err := ev.UnmarshalJSON(line); err != nil {
			return sum, fmt.Errorf("event log: %w", err)
		}
		counts.Add(&ev)
	}
	return sum, sc.Err()
}

// readFileArg returns the contents of a file named by a flag, as JSON.
func readFileArg(flag, file string) (json.RawMessage, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, usageErrorf("%s: %v", flag, err)
	}
	return data, nil
}

// remoteIdentity returns the uid/gid fields of a request: unset means the
// caller's own, and running as root is asked for explicitly when that is
// what the embedded command would do.
func remoteIdentity(uid, gid int) (*uint32, *uint32, bool) {
	if uid < 0 {
		return nil, nil, os.Geteuid() == 0
	}
	u, g := uint32(uid), uint32(gid)
	return &u, &g, uid == 0
}

// runExecRemote is `authbench exec` through the daemon: the same checks
// were made locally (prepareExec); the daemon compiles and enforces the
// plan itself.
func (a *app) runExecRemote(c *daemon.Client, ef execFlags, args []string) error {
	req := &daemon.RunRequest{Command: args, Env: os.Environ(), AllowUnenforced: ef.allowUnenforced, Trace: ef.trace != ""}
	var err error
	if req.Dir, err = os.Getwd(); err != nil {
		return fmt.Errorf("exec: %w", err)
	}
	if req.Policy, err = readFileArg("--policy", ef.policy); err != nil {
		return err
	}
	switch ef.baseline {
	case "default", "none":
		req.Baseline, _ = json.Marshal(ef.baseline)
	default:
		if req.Baseline, err = readFileArg("--baseline", ef.baseline); err != nil {
			return err
		}
	}
	switch ef.seccomp {
	case "":
	case "none":
		req.NoSeccomp = true
	default:
		if req.Seccomp, err = readFileArg("--seccomp", ef.seccomp); err != nil {
			return err
		}
	}
	req.UID, req.GID, req.AllowRoot = remoteIdentity(ef.uid, ef.gid)
	var trace *os.File
	if ef.trace != "" {
		if trace, err = os.Create(ef.trace); err != nil {
			return usageErrorf("exec: --trace: %v", err)
		}
		defer trace.Close()
	}
	r, err := a.startRemote(c, req)
	if err != nil {
		return err
	}
	final, err := r.wait(writerOrNil(trace))
	if err != nil {
		return &ExitError{Code: exitSandboxFailure, Err: fmt.Errorf("exec: run %s: %w", r.run.ID, err)}
	}
	if trace != nil {
		if err := r.finishTrace(trace, final); err != nil {
			a.log.Warn("trace", zap.Error(err))
		}
	}
	return r.exitStatus(final, "exec")
}

// writerOrNil is f as an io.Writer, nil (not a nil *os.File) when f is.
func writerOrNil(f *os.File) io.Writer {
	if f == nil {
		return nil
	}
	return f
}

// finishTrace completes `exec --trace FILE` once the events are in f: it
// writes the plan beside it and prints the run's audit.
func (r *remoteRun) finishTrace(f *os.File, final *daemon.Run) error {
	if err := f.Close(); err != nil {
		return err
	}
	file := f.Name()
	if final.Plan != nil {
		if err := writePlanRecord(file, final.Plan, sandbox.EnforcementFor(final.LandlockABI)); err != nil {
			return err
		}
	}
	if final.LostEvents > 0 {
		fmt.Fprintf(r.a.stderr, "authbench: trace: %d events were lost; the denial list may be incomplete\n", final.LostEvents)
	}
	printAudit(r.a.stderr, final.Denials, final.DeniedDropped, final.LoaderExecs, file)
	return nil
}

// runTraceRemote is `authbench trace` through the daemon.
func (a *app) runTraceRemote(c *daemon.Client, args []string, out string) error {
	req := &daemon.RunRequest{Command: args, Env: os.Environ(), NoSeccomp: true, Trace: true}
	var err error
	if req.Dir, err = os.Getwd(); err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	req.UID, req.GID, req.AllowRoot = remoteIdentity(-1, -1)
	var file *os.File // the events stream into it while the command runs
	if out != "" && out != "-" {
		if file, err = os.Create(out); err != nil {
			return usageErrorf("trace: --out: %v", err)
		}
		defer file.Close()
	}
	r, err := a.startRemote(c, req)
	if err != nil {
		return err
	}
	final, err := r.wait(writerOrNil(file))
	if err != nil {
		return fmt.Errorf("trace: run %s: %w", r.run.ID, err)
	}
	switch {
	case file != nil:
		err = file.Close()
	case out == "-": // after the command's own output, not mixed with it
		err = r.copyEvents(a.stdout)
	case out == "":
		counts := tracer.NewCounts()
		var sum tracer.Summary
		if sum, err = r.countEvents(counts); err == nil {
			err = counts.WriteText(a.stderr, sum)
		}
	}
	if err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	return r.exitStatus(final, "trace")
}
