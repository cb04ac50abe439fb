package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/authbench/authbench/agent"
	"github.com/authbench/authbench/agent/modelconfig"
	"github.com/authbench/authbench/agent/toolbox"
	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/sandbox"
	"github.com/authbench/authbench/taskrun/internal/runbox"
	"github.com/authbench/authbench/tracer/trace"
)

// StopToolboxDied is a model agent's stop reason when its tool process
// died twice (it is started again once).
const StopToolboxDied modelconfig.StopReason = "toolbox_died"

// errToolboxDied ends a model agent's loop.
var errToolboxDied = errors.New("the tool process died again after its restart")

// errToolboxBroke ends a model agent's loop at once: the tool process
// broke its protocol (a result line over the bound, or not a result).
var errToolboxBroke = errors.New("the tool process broke its protocol")

// Argv is the command of a model agent's container: the toolbox, its
// shell commands bounded by the agent's time.
func Argv(timeout time.Duration) []string {
	return []string{runbox.BinaryInContainer, "agent-tools", "--max-timeout", timeout.String()}
}

// Widening records what a model agent's plan grants beyond π: the tool
// process (authbench itself) may be executed and read.
func Widening() policy.Widening {
	return policy.Widening{
		Kind: "agent-toolbox", Axis: policy.Execute.String(), Pattern: runbox.BinaryInContainer, Path: runbox.BinaryInContainer,
		Extra:  policy.AccessExecute | policy.AccessReadFile,
		Detail: "the model agent's tool process (authbench agent-tools) runs as the agent: it may be executed, and read",
	}
}

// Prepare puts an empty file where the container mounts the authbench
// binary, so that the plan compiled over b's rootfs can name it.
func Prepare(b *runbox.Box) error {
	root, err := os.OpenRoot(b.Rootfs.Path)
	if err != nil {
		return err
	}
	defer root.Close()
	dir := filepath.Dir(runbox.BinaryInContainer[1:])
	if err := root.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("prepare %s: %w", runbox.BinaryInContainer, err)
	}
	// Non-blocking: a FIFO the image put there fails (ENXIO) instead of
	// blocking the run, and anything but a regular file is refused.
	f, err := root.OpenFile(runbox.BinaryInContainer[1:], os.O_CREATE|os.O_WRONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0o755)
	if err != nil {
		return fmt.Errorf("prepare %s: %w", runbox.BinaryInContainer, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return fmt.Errorf("prepare %s: the image has something other than a regular file there (%v)", runbox.BinaryInContainer, err)
	}
	return f.Close()
}

// toolboxContainer is one toolbox container of a run: the agent's tools
// until it ends. A run starts a second one when the first dies.
type toolboxContainer struct {
	n      int
	client *toolbox.Client
	ended  chan struct{} // closed when the container has ended: g is set
	g      runbox.GatedResult
	file   string // its event log
	trace  *runbox.AgentTrace
	// runtime counts the refused opens of the toolbox's own start-up.
	runtime *runtimeOpens
	cancel  context.CancelFunc
}

// toolboxSession is the toolbox side of a model agent: its containers,
// the tools bound to the current one, the calls made.
type toolboxSession struct {
	b        *runbox.Box
	o        Options
	res      *Result
	ctx      context.Context // the containers'
	deadline time.Time
	spec     sandbox.Launch
	stderr   io.Writer
	tools    func(*toolbox.Client) []agent.Tool
	stop     context.CancelCauseFunc // ends the loop

	mu      sync.Mutex
	cur     *toolboxContainer
	all     []*toolboxContainer
	current map[string]agent.Tool
	calls   []map[string]any // each call's Observation.Extra
	grants  []policy.Rule    // the run-time grants applied so far
}

// maxToolboxStarts is how many toolbox containers a run may start.
const maxToolboxStarts = 2

// Options are what a session runs.
type Options struct {
	// Tools makes the loop's tools of a client of the current toolbox.
	Tools func(*toolbox.Client) []agent.Tool
	// Loop is the model's loop (its Tools are set here); System and User
	// are its prompts.
	Loop         agent.Loop
	System, User string
	// Timeout is the agent's time: the loop's and its containers'.
	Timeout time.Duration
	// Trace follows a toolbox container's init (pid) into the run's
	// file, also seeing each event (Box.StartAgentTrace, with what the
	// caller observes besides); nil: untraced.
	Trace func(ctx context.Context, pid int, file string, also func(*trace.Event)) (*runbox.AgentTrace, error)
	// Requests, when set, gives the model request_permission and
	// confines every tool call to its CallPlan and the grants; the tool
	// process runs under its ToolboxPlan.
	Requests *Requests
}

// Result is how a session's containers ended.
type Result struct {
	// Outcome is the loop's; nil when the toolbox could not start at all.
	Outcome *agent.Outcome
	// ExitCode is the last container's exit status (-1: unknown;
	// sandbox.ExitNotExecutable when the policy refused the toolbox).
	ExitCode int
	// TimedOut is set when a container's time ran out.
	TimedOut bool
	// DurationS is the agent's time from its first start; SetupMS the
	// first container's set-up.
	DurationS, SetupMS float64
	// StillRunning were the containers' processes when they were killed.
	StillRunning []runapi.Process
	// Traced is set once a trace started; Events, LostEvents and Denials
	// are the traces' (the toolbox's own start-up opens discounted).
	Traced             bool
	Events, LostEvents uint64
	Denials            []audit.Denial
	// StdoutDropped and StderrDropped count what the agent's capped logs
	// dropped; OutputErr is a failure to close them.
	StdoutDropped, StderrDropped int64
	OutputErr                    error
}

// Run runs o.Loop with the tools that o.Tools makes of a client of the
// toolbox, which runs as b's gated agent container: confined by b's
// plan, as the agent's uid, traced into runapi.FileEvents, for
// o.Timeout (the loop's ctx ends with it). When the loop ends the
// toolbox's stdin is closed and its container ends; at the timeout it is
// killed. A toolbox that dies is started again once (a new container on
// the same rootfs, traced into its own event log); dying again ends the
// loop (StopToolboxDied). Each tool call's observation Extra gets its
// trace window (start_ns, end_ns) and its event log lines
// (events_first_line, events_last_line, and events_file when not
// runapi.FileEvents). b.AgentStart is set when the first container
// starts.
//
// The Result's Outcome is nil only when the toolbox could not start at
// all (the error says why); the error is otherwise one of the run.
func Run(ctx context.Context, b *runbox.Box, o Options) (*Result, error) {
	res := &Result{}
	plan := b.Plan
	if o.Requests != nil {
		plan = o.Requests.ToolboxPlan
	}
	var extra []sandbox.Option
	if o.Requests != nil && plan != nil {
		// The openat2 agent would open under the ceiling: no openat2.
		granting, err := sandbox.GrantingFilter()
		if err != nil {
			return res, err
		}
		extra = append(extra, sandbox.Seccomp(granting))
	}
	spec, err := b.AgentLaunchWith(Argv(o.Timeout), plan, extra...)
	if err != nil {
		return res, err
	}
	stdout, stderr, err := b.AgentOutput()
	if err != nil {
		return res, err
	}
	defer func() {
		res.OutputErr = b.CloseAgentOutput(stdout, stderr)
		res.StdoutDropped, res.StderrDropped = stdout.Dropped(), stderr.Dropped()
	}()
	b.AgentStart = time.Now()
	deadline := b.AgentStart.Add(o.Timeout)
	loopCtx, cancelLoop := context.WithDeadline(ctx, deadline)
	defer cancelLoop()
	loopCtx, stop := context.WithCancelCause(loopCtx)
	defer stop(nil)
	s := &toolboxSession{b: b, o: o, res: res, ctx: ctx, deadline: deadline, spec: spec, stderr: stderr, tools: o.Tools, stop: stop}
	if err := s.start(); err != nil {
		return res, err
	}
	// The model is not called before the toolbox answers: a toolbox that
	// cannot start costs no tokens (the same container would not start
	// again either).
	if _, err := s.cur.client.Call(loopCtx, toolbox.Request{Op: toolbox.OpPing}); err != nil && loopCtx.Err() == nil {
		return res, errors.Join(fmt.Errorf("the agent's tool process did not start: %w", err), s.end())
	}
	if err := s.confine(loopCtx); err != nil { // fail closed: no call runs unconfined
		return res, errors.Join(err, s.end())
	}
	loop := o.Loop
	loop.Tools = s.wrapTools()
	if loop.Log == nil {
		loop.Log = b.Log
	}
	out := loop.Run(loopCtx, o.System, o.User)
	if cause := context.Cause(loopCtx); errors.Is(cause, errToolboxDied) || errors.Is(cause, errToolboxBroke) {
		out.Reason, out.Err = StopToolboxDied, cause
	}
	runErr := s.end()
	s.annotate()
	res.Outcome = out
	b.Log.Info("model agent ended", zap.String("task", b.Task.Name), zap.String("stop", string(out.Reason)),
		zap.Int("turns", out.Turns), zap.Int("containers", len(s.all)))
	return res, runErr
}

// start starts a toolbox container and makes it the current one.
func (s *toolboxSession) start() error {
	b := s.b
	n := len(s.all)
	// The channel is a socket pair; the toolbox seals itself (see
	// toolbox.Connect): no process of the agent can open or inherit it.
	client, child, err := toolbox.Connect(b.Log.With(zap.Int("toolbox", n)))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(s.ctx)
	c := &toolboxContainer{n: n, client: client, ended: make(chan struct{}), file: runapi.FileEvents, cancel: cancel}
	name := "agent"
	if n > 0 {
		name = "agent-restart-" + strconv.Itoa(n)
		c.file = "events-restart-" + strconv.Itoa(n) + ".jsonl"
	}
	var track func(ctx context.Context, pid int) error
	if s.o.Trace != nil && b.Tracer != nil {
		track = func(ctx context.Context, pid int) error {
			c.runtime = &runtimeOpens{pid: pid, refused: map[string]int{}}
			var err error
			c.trace, err = s.o.Trace(ctx, pid, c.file, c.runtime.observe)
			return err
		}
	}
	closeChildEnds := sync.OnceFunc(func() { child.Close() })
	go func() {
		g := b.RunGated(ctx, runbox.Gated{
			Name: name, Config: b.AgentRunConfig(), Launch: s.spec,
			Stdio:   env.Stdio{Stdin: child, Stdout: child, Stderr: s.stderr},
			Timeout: time.Until(s.deadline), Track: track, Started: closeChildEnds,
		})
		closeChildEnds()
		c.g = g
		close(c.ended)
	}()
	s.mu.Lock()
	s.cur = c
	s.all = append(s.all, c)
	s.current = map[string]agent.Tool{}
	for _, t := range s.tools(c.client) {
		s.current[t.Name] = t
	}
	s.mu.Unlock()
	return nil
}

// wrapTools are the tools given to the loop: each runs the current
// container's tool of its name, notes its Extra, and restarts a dead
// toolbox.
func (s *toolboxSession) wrapTools() []agent.Tool {
	var out []agent.Tool
	for _, t := range s.tools(s.cur.client) {
		name := t.Name
		t.Run = func(ctx context.Context, args json.RawMessage) (agent.Observation, error) {
			s.mu.Lock()
			c, tool := s.cur, s.current[name]
			s.mu.Unlock()
			obs, err := tool.Run(ctx, args)
			if errors.Is(err, toolbox.ErrBroken) {
				return s.broke(c, err)
			}
			if errors.Is(err, toolbox.ErrGone) {
				return s.restart(ctx, c, err)
			}
			if err == nil && obs.Extra != nil && obs.Extra["start_ns"] != nil {
				if c.file != runapi.FileEvents {
					obs.Extra["events_file"] = c.file
				}
				s.mu.Lock()
				s.calls = append(s.calls, obs.Extra)
				s.mu.Unlock()
			}
			return obs, err
		}
		out = append(out, t)
	}
	if s.o.Requests != nil {
		out = append(out, s.requestTool())
	}
	return out
}

// broke ends the loop after the toolbox c broke its protocol, and kills
// its container: what it says is not to be trusted again.
func (s *toolboxSession) broke(c *toolboxContainer, err error) (agent.Observation, error) {
	s.b.Log.Error("the model agent's tool process broke its protocol: the run ends", zap.Int("container", c.n), zap.Error(err))
	c.cancel()
	s.stop(fmt.Errorf("%w: %w", errToolboxBroke, err))
	return agent.Observation{}, fmt.Errorf("the tool process broke its protocol: the run ends")
}

// restart replaces the dead toolbox c, once; a second death ends the loop.
func (s *toolboxSession) restart(ctx context.Context, c *toolboxContainer, gone error) (agent.Observation, error) {
	// Usually its container has ended; a toolbox that broke the protocol
	// is killed.
	_ = c.client.Close()
	select {
	case <-c.ended:
	case <-time.After(toolboxExitGrace):
		c.cancel()
	}
	g := s.wait(c)
	s.b.Log.Warn("the model agent's tool process died", zap.Int("container", c.n), zap.Int("exit", g.ExitCode), zap.Error(gone))
	if ctx.Err() != nil {
		return agent.Observation{}, ctx.Err()
	}
	if len(s.all) >= maxToolboxStarts {
		s.stop(errToolboxDied)
		return agent.Observation{}, fmt.Errorf("the tool process died again (exit status %d): the run ends", g.ExitCode)
	}
	if err := s.start(); err != nil {
		s.stop(errToolboxDied)
		return agent.Observation{}, fmt.Errorf("the tool process died (exit status %d) and could not be started again: %w", g.ExitCode, err)
	}
	if err := s.confine(ctx); err != nil {
		s.stop(errToolboxDied)
		return agent.Observation{}, fmt.Errorf("the tool process died (exit status %d) and its new one could not be confined: %w", g.ExitCode, err)
	}
	return agent.Observation{Text: fmt.Sprintf("error: the tool process died during this call (exit status %d) and was started again: "+
		"the shell is back in its first working directory and environment, and processes started before are gone. "+
		"Files written before are kept.", g.ExitCode)}, nil
}

// wait waits for c's container to end (its stdin closed).
func (s *toolboxSession) wait(c *toolboxContainer) runbox.GatedResult {
	<-c.ended
	return c.g
}

// toolboxExitGrace is how long a toolbox may take to exit once its stdin
// is closed before its container is killed.
const toolboxExitGrace = 10 * time.Second

// end closes the current toolbox's stdin, waits for its container (killed
// after toolboxExitGrace) and records the containers' ends and traces.
func (s *toolboxSession) end() error {
	b, res := s.b, s.res
	cur := s.cur
	_ = cur.client.Close()
	select {
	case <-cur.ended:
	case <-time.After(toolboxExitGrace):
		b.Log.Warn("the model agent's tool process did not exit when its input ended: killing it")
		cur.cancel()
	}
	var errs []error
	res.ExitCode = -1
	for _, c := range s.all {
		g := s.wait(c)
		c.cancel()
		s.finishTrace(c)
		res.ExitCode, res.TimedOut = g.ExitCode, res.TimedOut || g.TimedOut
		if c.n == 0 {
			res.SetupMS = float64(g.Setup) / float64(time.Millisecond)
		}
		res.StillRunning = append(res.StillRunning, g.StillRunning...)
		if g.StartTimedOut {
			g.StartErr = nil
		}
		if g.StartErr != nil {
			if refused, denial := b.RefusedAgent(g.StartErr); refused {
				g.StartErr = nil
				res.ExitCode = sandbox.ExitNotExecutable
				if denial != nil {
					res.Denials = append(res.Denials, *denial)
				}
			}
		}
		if g.StartErr != nil {
			errs = append(errs, fmt.Errorf("agent tool process could not start: %w", g.StartErr))
		}
		if g.WaitErr != nil {
			errs = append(errs, fmt.Errorf("agent tool process: %w", g.WaitErr))
		}
	}
	res.DurationS = time.Since(b.AgentStart).Seconds()
	return errors.Join(errs...)
}

// finishTrace closes c's recording and adds it to the result, less the
// toolbox's own start-up opens.
func (s *toolboxSession) finishTrace(c *toolboxContainer) {
	if c.trace == nil {
		return
	}
	sum := s.b.FinishAgentTrace(c.trace)
	s.res.Traced = true
	s.res.Events += sum.Events
	s.res.LostEvents += sum.Lost
	s.res.Denials = append(s.res.Denials, c.runtime.discount(sum.Denials)...)
}

// runtimeOpen are the files the Go runtime of the toolbox opens before
// its main (the cgroup's CPU limit, the huge page size): refused under
// most policies, and not the agent's doing.
var runtimeOpen = map[string]bool{
	"/proc/self/cgroup": true, "/proc/self/mountinfo": true,
	"/sys/kernel/mm/transparent_hugepage/hpage_pmd_size": true,
}

// runtimeOpens counts the refused runtimeOpen opens of the toolbox
// process itself (pid, the container's init) before it served a call.
type runtimeOpens struct {
	pid     int
	refused map[string]int
}

func (ro *runtimeOpens) observe(ev *trace.Event) {
	if ev.TGID == ro.pid && ev.Op == trace.OpOpen && ev.Failed() && runtimeOpen[ev.Path] {
		ro.refused[ev.Path]++
	}
}

// discount removes the toolbox's own start-up opens from denials (they
// stay in the event log).
func (ro *runtimeOpens) discount(denials []audit.Denial) []audit.Denial {
	if ro == nil {
		return denials
	}
	out := denials[:0]
	for _, d := range denials {
		if n := min(d.Count, ro.refused[d.Path]); n > 0 && d.Op == string(trace.OpOpen) && d.Errno != audit.OutsidePlan {
			d.Count -= n
			ro.refused[d.Path] -= n
			if d.Count == 0 {
				continue
			}
		}
		out = append(out, d)
	}
	return out
}

// annotate adds to each call's Extra the lines of its event log between
// its start and end (1-based, as the file's lines).
func (s *toolboxSession) annotate() {
	byFile := map[string][]map[string]any{}
	for _, extra := range s.calls {
		file, _ := extra["events_file"].(string)
		if file == "" {
			file = runapi.FileEvents
		}
		byFile[file] = append(byFile[file], extra)
	}
	for file, calls := range byFile {
		if err := annotateCalls(filepath.Join(s.b.Dir, file), calls); err != nil {
			s.b.Log.Warn("event lines of the tool calls", zap.String("file", file), zap.Error(err))
		}
	}
}

// annotateCalls sets events_first_line and events_last_line of each call
// (its Extra holds start_ns and end_ns) from the event log path.
func annotateCalls(path string, calls []map[string]any) error {
	type window struct {
		start, end  int64
		first, last int
	}
	ws := make([]window, len(calls))
	for i, c := range calls {
		ws[i].start, _ = c["start_ns"].(int64)
		ws[i].end, _ = c["end_ns"].(int64)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	line := 0
	_, err = audit.ReadLog(f, func(ev *trace.Event) error {
		line++
		for i := range ws {
			if ev.TS >= ws[i].start && ev.TS <= ws[i].end {
				if ws[i].first == 0 {
					ws[i].first = line
				}
				ws[i].last = line
			}
		}
		return nil
	})
	for i, w := range ws {
		if w.first > 0 {
			calls[i]["events_first_line"], calls[i]["events_last_line"] = w.first, w.last
		}
	}
	return err
}
