package taskrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/permreq/broker"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/sandbox"
	"github.com/authbench/authbench/taskrun/internal/runbox"
	"github.com/authbench/authbench/taskrun/internal/session"
)

// requestDir is the run directory's directory bound read-only at
// broker.ContainerDir in the agent's container: the program's symlink
// and the socket.
const requestDir = "requests"

// brokerRun is a command agent's or an installed harness's request
// channel: the server of its socket, the grants so far, and the granted
// commands it started (docs/security.md, "Permission requests").
type brokerRun struct {
	r    *runner
	srv  *broker.Server
	dir  string
	init atomic.Int64 // the agent container's init, as the host sees it

	mu       sync.Mutex
	grants   []policy.Rule
	commands int
	// denials and sensitive are what the granted commands' traces found.
	denials   []audit.Denial
	sensitive []runapi.SensitiveAccess
	events    uint64
}

// requestProgramWidening records that the agent's plan lets it execute
// the authbench binary, as request-permission.
func requestProgramWidening(decider string) policy.Widening {
	return policy.Widening{
		Kind: "request-program", Axis: policy.Execute.String(), Pattern: "--requests " + decider, Path: runbox.BinaryInContainer,
		Detail: "the agent may execute the authbench binary as " + broker.ProgramPath + " to ask for permissions; it runs under the agent's own domain",
	}
}

// startBroker readies the agent's container g for requests when the run
// takes them from a command agent or an installed harness: the socket
// served, its directory bound at broker.ContainerDir, that directory on
// the agent's PATH, the container's init noted for the peer check.
func (r *runner) startBroker(ctx context.Context, g *runbox.Gated) error {
	q := r.requests
	if q == nil || q.session != nil {
		return nil // no requests, or the model agent's (its tool)
	}
	b := &brokerRun{r: r, dir: filepath.Join(r.Options.Dir, requestDir)}
	if err := os.MkdirAll(b.dir, 0o755); err != nil {
		return fmt.Errorf("requests: %w", err)
	}
	if err := os.Symlink(runbox.BinaryInContainer, filepath.Join(b.dir, broker.ProgramName)); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("requests: %w", err)
	}
	b.srv = &broker.Server{Handle: b.handle, Peer: b.peer, Log: r.Log}
	if err := b.srv.Listen(b.dir); err != nil {
		return err
	}
	go b.srv.Serve(ctx)
	q.broker = b
	g.Config.Binds = append(g.Config.Binds, env.Bind{Source: b.dir, Destination: broker.ContainerDir, ReadOnly: true})
	g.Launch.Env = withRequestPath(g.Launch.Env)
	track := g.Track
	g.Track = func(ctx context.Context, pid int) error {
		b.init.Store(int64(pid))
		if track != nil {
			return track(ctx, pid)
		}
		return nil
	}
	return nil
}

// prepareRequestProgram makes the mount point of the authbench binary
// in the rootfs of a run that takes requests from an agent other than
// the model agent (whose tool process needs it anyway), so that the
// plan can name it: request-permission is that binary.
func (r *runner) prepareRequestProgram(model bool) error {
	if model || r.Options.Requests == "" {
		return nil
	}
	return session.Prepare(r.Box)
}

// withRequestPath puts broker.ContainerDir last on env's PATH.
func withRequestPath(env []string) []string {
	out := slices.Clone(env)
	for i, kv := range out {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			if v != "" {
				v += ":"
			}
			out[i] = "PATH=" + v + broker.ContainerDir
			return out
		}
	}
	return append(out, "PATH="+policy.DefaultPath+":"+broker.ContainerDir)
}

// peer admits processes of the agent's container only.
func (b *brokerRun) peer(pid int) error {
	init := b.init.Load()
	if init == 0 {
		return errors.New("the agent has not started")
	}
	return broker.SamePIDNamespace(int(init))(pid)
}

// handle decides a request at the run's desk; a grant adds its rules to
// every command started from now on, and runs the request's command.
func (b *brokerRun) handle(ctx context.Context, c *broker.Call) (broker.Reply, broker.Run) {
	q := b.r.requests
	i, rec, g := q.desk.Ask(ctx, c.Access, c.Path, c.Reason)
	ans := broker.Reply{Decision: rec.Decision, Why: rec.Why, Rules: rec.Rules}
	if g == nil {
		return ans, nil
	}
	if len(g.Hosts) > 0 {
		if err := b.r.allowHosts(g.Hosts); err != nil {
			rec = q.desk.Failed(i, err)
			return broker.Reply{Decision: rec.Decision, Why: rec.Why}, nil
		}
	}
	b.mu.Lock()
	b.grants = append(b.grants, g.Rules...)
	rules := slices.Clone(b.grants)
	b.commands++
	n := b.commands
	b.mu.Unlock()
	q.granted(i, rec)
	if len(c.Command) == 0 {
		ans.Why += "; it applies to the commands you start with " + broker.ProgramName + " ... -- COMMAND"
		return ans, nil
	}
	msg, stdio := c.Message, c.Stdio
	return ans, func(ctx context.Context) broker.Reply {
		status, err := b.run(ctx, n, msg, stdio, rules)
		if err != nil {
			b.r.Log.Warn("granted command did not run", zap.Int("request", i), zap.Error(err))
			return broker.Reply{Decision: rec.Decision, Error: err.Error()}
		}
		return broker.Reply{Decision: rec.Decision, Status: status}
	}
}

// grantedPlan is the run's plan with rules added.
func (b *brokerRun) grantedPlan(rules []policy.Rule) *policy.Plan {
	p := *b.r.Plan
	p.Rules = append(slices.Clone(p.Rules), rules...)
	return &p
}

// run starts msg's command as a new process in the agent's container
// (runc exec of sandbox-init, under π and rules, with the caller's
// standard descriptors), traced like the agent, and returns its status.
func (b *brokerRun) run(ctx context.Context, n int, msg broker.Message, stdio []*os.File, rules []policy.Rule) (int, error) {
	r := b.r
	plan := b.grantedPlan(rules)
	spec, err := r.AgentLaunchWith(msg.Command, plan)
	if err != nil {
		return 0, err
	}
	spec.Env = withRequestPath(spec.Env)
	if msg.Dir != "" {
		spec.Dir = msg.Dir
	}
	gate, err := sandbox.NewGate(spec)
	if err != nil {
		return 0, err
	}
	defer gate.Close()
	pidFile := filepath.Join(r.Options.Dir, fmt.Sprintf("request-%d.pid", n))
	cmd := b.execCommand(ctx, pidFile)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdio[0], stdio[1], stdio[2]
	cmd.ExtraFiles = gate.ChildFiles()
	err = cmd.Start()
	gate.Started()
	if err != nil {
		return 0, fmt.Errorf("runc exec: %w", err)
	}
	defer cmd.Wait()
	pid, err := waitPidFile(ctx, pidFile)
	var finish func()
	if err == nil {
		finish, err = b.release(ctx, n, pid, plan, gate)
	}
	if err != nil {
		cmd.Process.Kill()
		return 0, err
	}
	err = cmd.Wait()
	finish()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), nil
	}
	return 0, err
}

// execCommand is `runc exec` of sandbox-init in the agent's container,
// passing the gate's two descriptors.
func (b *brokerRun) execCommand(ctx context.Context, pidFile string) *exec.Cmd {
	r := b.r
	a := r.Options.Runc.ExecArgv(r.ID+"-agent", 0, 0, "", nil, []string{runbox.BinaryInContainer, sandbox.InitCommand})
	at := slices.Index(a, "exec") + 1
	a = slices.Insert(a, at, "--preserve-fds", "2", "--pid-file", pidFile)
	cmd := exec.CommandContext(ctx, a[0], a[1:]...)
	cmd.WaitDelay = 2 * time.Second
	return cmd
}

// release traces the command's sandbox-init (pid) from its exec, as the
// agent is, and opens its gate; finish closes the trace once the
// command ended.
func (b *brokerRun) release(ctx context.Context, n, pid int, plan *policy.Plan, gate *sandbox.Gate) (finish func(), err error) {
	r := b.r
	finish = func() {}
	if err := runbox.WaitForExe(ctx, pid, runbox.BinaryInContainer); err != nil {
		return finish, err
	}
	if r.Tracer != nil {
		root, err := policy.NewRoot(r.Rootfs.Path)
		if err != nil {
			return finish, err
		}
		sens := newSensitiveMatcher(r.Options.Task.Spec, root)
		rec, err := r.TraceContainer(ctx, pid, fmt.Sprintf("request-%d-%s", n, runapi.FileEvents), plan, root,
			r.requests.watch(sens.observe))
		if err != nil {
			return finish, err
		}
		finish = func() { b.finishTrace(rec, sens, pid) }
	}
	if err := gate.ReleaseProcess(pid); err != nil {
		finish()
		return func() {}, err
	}
	return finish, nil
}

// finishTrace closes a granted command's recording once it ended and
// keeps what it found for the run's result.
func (b *brokerRun) finishTrace(rec *audit.Recording, sens *sensitiveMatcher, pid int) {
	for processAlive(pid) {
		time.Sleep(5 * time.Millisecond)
	}
	sum, err := rec.Close()
	if err != nil {
		b.r.Log.Error("granted command's trace incomplete", zap.Error(err))
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.events += sum.Events
	b.denials = append(b.denials, rec.Auditor.Denials()...)
	b.sensitive = append(b.sensitive, sens.found...)
}

func processAlive(pid int) bool {
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	return err == nil
}

// waitPidFile waits for runc to write the pid of the process it execs.
func waitPidFile(ctx context.Context, path string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		if b, err := os.ReadFile(path); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
				return pid, nil
			}
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("runc exec wrote no pid: %w", ctx.Err())
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// finishBroker stops a run's request channel once its containers are
// gone and puts what its granted commands did into the result.
func (r *runner) finishBroker() {
	q := r.requests
	if q == nil || q.session != nil {
		return // none, or the model agent's (runModelAgent notes them)
	}
	defer r.noteRequests()
	b := q.broker
	if b == nil {
		return // the agent's container never started
	}
	b.srv.Close()
	b.mu.Lock()
	r.res.Denials = append(r.res.Denials, b.denials...)
	r.res.TracedSensitive = append(r.res.TracedSensitive, b.sensitive...)
	r.res.Events += b.events
	b.mu.Unlock()
}
