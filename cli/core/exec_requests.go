package core

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/daemon"
	"github.com/authbench/authbench/permreq"
	"github.com/authbench/authbench/permreq/broker"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
)

// execRequestDeciders are the deciders `exec --requests` takes: a bare
// host has no task, so no spec.
var execRequestDeciders = []string{permreq.DeciderAsk, permreq.DeciderDeny, permreq.DeciderAllow}

// registerExecRequests adds exec's --requests flag.
func registerExecRequests(cmd *cobra.Command, ef *execFlags) {
	cmd.Flags().StringVar(&ef.requests, "requests", "", "let CMD ask for permissions at run time with request-permission, decided by `DECIDER`: "+
		strings.Join(execRequestDeciders, ", ")+" (ask: the person at the controlling terminal; embedded runs only; docs/security.md)")
}

// execRequests is a bare-host exec's request channel: the socket, the
// desk and the grants; granted commands run as new attached runs of the
// embedded daemon under the plan and the grants.
type execRequests struct {
	a    *App
	dir  string
	srv  *broker.Server
	desk *permreq.Desk
	tty  *permreq.TTY
	req  runapi.RunRequest
	plan *policy.Plan
	rt   *RunAPI

	mu     sync.Mutex
	grants []policy.Rule
}

// startExecRequests readies req's tree to ask (--requests): it checks the
// decider and the kernel, opens /dev/tty for ask, serves the socket, puts
// request-permission on the tree's PATH and lets the plan execute it.
// stop ends it; the requests are printed on stderr.
func (a *App) startExecRequests(ef execFlags, req *runapi.RunRequest, pl *policy.Plan, rt *RunAPI) (stop func(), err error) {
	if ef.requests == "" {
		return func() {}, nil
	}
	if !slices.Contains(execRequestDeciders, ef.requests) {
		return nil, UsageErrorf("exec --requests: want one of %s, got %q", strings.Join(execRequestDeciders, ", "), ef.requests)
	}
	if rt.local == nil {
		return nil, UsageErrorf("exec --requests: only an embedded run takes requests (no daemon on --socket): the daemon has no terminal to ask on")
	}
	if abi := a.landlockABI(); abi < 9 && !req.Exec.AllowUnixConnect {
		return nil, UsageErrorf("exec --requests: below Landlock ABI 9 (this kernel: %d) the tree may create no unix socket, so it cannot ask: add --allow-unix-connect", abi)
	}
	if ef.requests == permreq.DeciderAsk && ef.seccomp != "" && !tiocstiDisabled() {
		// The default filter refuses TIOCSTI: without it the tree could
		// type the person's answer into the terminal.
		return nil, UsageErrorf("exec --requests ask: with --seccomp the tree could type an answer into the terminal (TIOCSTI); keep the default filter, or set dev.tty.legacy_tiocsti = 0")
	}
	x := &execRequests{a: a, plan: pl, rt: rt}
	d, err := x.decider(ef.requests)
	if err != nil {
		return nil, err
	}
	root, err := policy.NewRoot("/")
	if err != nil {
		return nil, err
	}
	x.desk = permreq.NewDesk(d, nil, root, policy.PlanOptions{Semantics: pl.Semantics}, permreq.Limits{})
	if err := x.listen(req); err != nil {
		x.close()
		return nil, err
	}
	x.req = *req
	return func() { x.close(); x.print() }, nil
}

// decider makes the named decider; ask opens the controlling terminal.
func (x *execRequests) decider(name string) (permreq.Decider, error) {
	if name != permreq.DeciderAsk {
		return permreq.NewDecider(name, nil, nil)
	}
	tty, err := permreq.OpenTTY("/dev/tty")
	if err != nil {
		return nil, UsageErrorf("exec --requests ask: no controlling terminal to ask on: %v", err)
	}
	x.tty = &tty
	return permreq.NewAskDecider(tty, nil), nil
}

// listen serves the socket in a fresh directory beside the program's
// symlink, and points req's tree at them.
func (x *execRequests) listen(req *runapi.RunRequest) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if x.dir, err = os.MkdirTemp("", "authbench-requests-"); err != nil {
		return fmt.Errorf("exec --requests: %w", err)
	}
	if err := os.Chmod(x.dir, 0o755); err != nil {
		return err
	}
	if err := os.Symlink(self, filepath.Join(x.dir, broker.ProgramName)); err != nil {
		return err
	}
	// The tree may execute authbench, as request-permission: it runs
	// under the tree's own domain.
	rules, err := selfRules(self, x.plan)
	if err != nil {
		return err
	}
	x.plan.Rules = append(x.plan.Rules, rules...)
	x.srv = &broker.Server{Handle: x.handle, Peer: descendant, Log: x.a.Log}
	if err := x.srv.Listen(x.dir); err != nil {
		return err
	}
	go x.srv.Serve(context.Background())
	req.Exec.Env = append(withPath(req.Exec.Env, x.dir), broker.SocketEnv+"="+filepath.Join(x.dir, broker.SocketName))
	return nil
}

// selfRules are the rules that let a plan like pl execute self.
func selfRules(self string, pl *policy.Plan) ([]policy.Rule, error) {
	p, err := policy.ParsePattern(self)
	if err != nil {
		return nil, err
	}
	root, err := policy.NewRoot("/")
	if err != nil {
		return nil, err
	}
	var perms policy.Permissions
	perms[policy.Execute] = []policy.Pattern{p}
	sp, err := policy.CompilePlanWith(&policy.Policy{Permissions: perms, Source: "request-permission"}, policy.NoBaseline(), root, policy.PlanOptions{Semantics: pl.Semantics})
	if err != nil {
		return nil, fmt.Errorf("exec --requests: the rule for %s: %w", self, err)
	}
	var out []policy.Rule
	for _, r := range sp.Rules {
		if r.Path == self {
			out = append(out, r)
		}
	}
	return out, nil
}

// withPath puts dir last on env's PATH.
func withPath(env []string, dir string) []string {
	out := slices.Clone(env)
	for i, kv := range out {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			out[i] = "PATH=" + v + ":" + dir
			return out
		}
	}
	return append(out, "PATH="+policy.DefaultPath+":"+dir)
}

// descendant admits processes below this one (the tree and the granted
// commands, which this process's embedded daemon started).
func descendant(pid int) error {
	self := os.Getpid()
	for i, p := 0, pid; i < 128 && p > 1; i++ {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/stat")
		if err != nil {
			break
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 2 {
			break
		}
		if p, err = strconv.Atoi(f[1]); err != nil {
			break
		}
		if p == self {
			return nil
		}
	}
	return fmt.Errorf("process %d is not of this exec's tree", pid)
}

// handle decides at the desk; a granted command runs as a new attached
// run under the plan and every grant so far, with the caller's stdio.
func (x *execRequests) handle(ctx context.Context, c *broker.Call) (broker.Reply, broker.Run) {
	_, rec, g := x.desk.Ask(ctx, c.Access, c.Path, c.Reason)
	ans := broker.Reply{Decision: rec.Decision, Why: rec.Why, Rules: rec.Rules}
	if g == nil {
		return ans, nil
	}
	if len(g.Hosts) > 0 {
		return broker.Reply{Decision: runapi.RequestRefused, Why: "refused: a bare-host exec has no network policy to widen"}, nil
	}
	x.mu.Lock()
	x.grants = append(x.grants, g.Rules...)
	plan := *x.plan
	plan.Rules = append(slices.Clone(plan.Rules), x.grants...)
	x.mu.Unlock()
	if len(c.Command) == 0 {
		return ans, nil
	}
	sub, exec := x.req, *x.req.Exec // the request's own exec member is not changed
	exec.Command, exec.Trace = c.Command, false
	if c.Dir != "" {
		exec.Dir = c.Dir
	}
	sub.Exec = &exec
	stdio := c.Stdio
	return ans, func(ctx context.Context) broker.Reply {
		run, err := x.rt.local.SubmitAttached(ctx, &sub, &daemon.Attachment{Stdin: stdio[0], Stdout: stdio[1], Stderr: stdio[2], Plan: &plan})
		if err == nil {
			run, err = x.rt.local.M.Wait(ctx, run.ID)
		}
		switch {
		case err != nil:
			return broker.Reply{Error: err.Error()}
		case run.ExitStatus != nil:
			return broker.Reply{Status: *run.ExitStatus}
		}
		return broker.Reply{Error: fmt.Sprintf("run %s %s: %s", run.ID, run.State, run.Error)}
	}
}

// close stops the socket (after the granted commands) and removes it.
func (x *execRequests) close() {
	if x.srv != nil {
		x.srv.Close()
	}
	if x.tty != nil {
		x.tty.Close()
	}
	if x.dir != "" {
		os.RemoveAll(x.dir)
	}
}

// print lists the requests on stderr.
func (x *execRequests) print() {
	recs, over := x.desk.Records()
	for _, r := range recs {
		fmt.Fprintf(x.a.Stderr, "authbench: request %s %s %s: %s\n", r.Decision, r.Access, r.Path, r.Why)
	}
	if over > 0 {
		fmt.Fprintf(x.a.Stderr, "authbench: %d more requests over the limit\n", over)
	}
}

// tiocstiDisabled reports whether the kernel refuses TIOCSTI to
// processes without CAP_SYS_ADMIN (dev.tty.legacy_tiocsti = 0).
func tiocstiDisabled() bool {
	b, err := os.ReadFile("/proc/sys/dev/tty/legacy_tiocsti")
	return err == nil && strings.TrimSpace(string(b)) == "0"
}
