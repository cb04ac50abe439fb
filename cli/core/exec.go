package core

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/authbench/authbench/capability"
	"github.com/authbench/authbench/daemon"
	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/sandbox"
)

// execFlags are the flags of `authbench exec`.
type execFlags struct {
	PlanFlags
	seccomp          string
	uid, gid         int
	allowUnenforced  bool
	allowUnixConnect bool
	trace            string
	learn            string
	runs             int
	caps             []string
	capSet           string
	requests         string // --requests (exec_requests.go)
}

// ExecCmd is `authbench exec`, the same in both binaries.
func (a *App) ExecCmd() *cobra.Command {
	var ef execFlags
	cmd := &cobra.Command{
		Use:   "exec --policy FILE [--baseline default|none|SPEC.json] [--seccomp FILE] [--uid N --gid N] [--caps none|docker|LIST] [--cap NAME]... [--allow-unenforced] [--allow-unix-connect] [--trace FILE] -- CMD [ARGS...]",
		Short: "Run a command confined to a policy with Landlock, seccomp and no_new_privs",
		Long: `Run CMD with the file access of the policy (see "authbench policy plan"),
and exit with CMD's status.

The run goes through the daemon when one listens on --socket, else through
the same daemon code embedded in this process, with CMD attached to this
terminal (stdin, stdout, stderr) and SIGINT, SIGTERM, SIGHUP and SIGQUIT
forwarded to it. A gated re-execution of authbench (sandbox-init) becomes
CMD: in this order, it closes every inherited descriptor except stdin,
stdout and stderr; restricts itself with Landlock (every ABI from 1 up,
best effort, plus the ABI-6 scopes: no abstract unix sockets to or signals
for processes outside); drops every capability but those of --caps and
--cap (none by default; "docker" is Docker's default set, held as a root
container holds it; uid 0 only); drops to --uid/--gid with no supplementary
groups; sets no_new_privs; installs the seccomp profile (--seccomp FILE in
the OCI/Docker format, default: see "authbench seccomp default"; "none" for
no filter); and execs CMD, found as a shell finds it: a name in the PATH of
the environment, a path with a slash relative to this working directory.
As root the tree is the init of its own PID namespace (it dies as a whole);
as another user there is no PID namespace, and a kill ends its root process.

A kernel without Landlock is refused unless --allow-unenforced is given.
Connecting to pathname unix sockets is limited to the policy's write paths
by Landlock from ABI 9 on; below it the tree may create no unix socket but
socketpair (socket(AF_UNIX) answers EACCES; ssh-agent, docker.sock and
D-Bus clients fail) unless --allow-unix-connect is given.
With --trace FILE the run is traced (eBPF): events are written to FILE as
JSON lines (a program run through the dynamic loader adds an exec event of
the program whose path2 is the loader), the plan and what this kernel
enforces of it to FILE.plan.json, and the denied accesses (path, axis,
operation) are listed on stderr at the end. FILE and FILE.plan.json are
written to new files renamed into place; a symbolic link there is refused.

With --learn FILE, CMD runs --runs times traced, under --policy when given
and otherwise with no file restriction (every path readable, writable and
executable: the learning runs are not confined); the policy the runs needed
(what the baseline grants left out, compacted as "authbench oracle record"
compacts a recording, every run's entries kept) is written to FILE; then CMD
runs once more, confined to it and traced, which verifies it: the command must
end as the learning runs did with no access denied. The exit status is that
run's, or 1 when the policy did not verify.

Exit status: CMD's status (128+N when killed by signal N); 126 when CMD
cannot be executed (no execute rule, or not executable); 127 when it is not
found; 125 when authbench could not confine it; 2 for bad input (nothing
is started).`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return UsageErrorf("exec: missing command (usage: authbench exec --policy FILE -- CMD [ARGS...])")
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error { return a.runExec(ef, args) },
	}
	cmd.Flags().SetInterspersed(false)
	ef.Register(cmd)
	cmd.Flags().StringVar(&ef.seccomp, "seccomp", "", "seccomp profile `FILE` (OCI LinuxSeccomp / Docker format); \"none\" for no filter")
	cmd.Flags().IntVar(&ef.uid, "uid", -1, "run as user `N` (with --gid; root only)")
	cmd.Flags().IntVar(&ef.gid, "gid", -1, "run as group `N` (with --uid)")
	cmd.Flags().StringVar(&ef.capSet, "caps", capability.SetNone, "capabilities the tree keeps: `none`, docker (Docker's default set) or a list such as CHOWN,FOWNER (uid 0 only)")
	cmd.Flags().StringArrayVar(&ef.caps, "cap", nil, "keep capability `NAME` (e.g. CAP_NET_BIND_SERVICE; repeatable; only for a tree running as uid 0)")
	cmd.Flags().BoolVar(&ef.allowUnixConnect, "allow-unix-connect", false, "let the tree connect to pathname unix sockets (ssh-agent, docker.sock) on a kernel below Landlock ABI 9, where it otherwise may create no unix socket but socketpair")
	cmd.Flags().BoolVar(&ef.allowUnenforced, "allow-unenforced", false, "run even if the kernel has no Landlock (the policy is then NOT enforced)")
	cmd.Flags().StringVar(&ef.trace, "trace", "", "trace the run with eBPF and write the events to `FILE` as JSON lines")
	cmd.Flags().StringVar(&ef.learn, "learn", "", "learn the policy CMD needs: run it traced (--runs times), write the policy to `FILE`, and replay CMD confined to it")
	cmd.Flags().IntVar(&ef.runs, "runs", 1, "with --learn, how many traced runs the policy is learnt from")
	registerExecRequests(cmd, &ef)
	return cmd
}

// prepareExec checks the input and builds the run request and its plan
// (compiled as the daemon compiles it: an embedded run enforces this
// one); nothing is started, so every problem here leaves the system
// untouched.
func (a *App) prepareExec(ef execFlags, args []string) (*runapi.RunRequest, *policy.Plan, error) {
	if (ef.uid < 0) != (ef.gid < 0) {
		return nil, nil, UsageErrorf("--uid and --gid must be given together")
	}
	if ef.Policy == "" {
		return nil, nil, UsageErrorf("--policy is required")
	}
	// The files are read once, into the request; the plan is compiled
	// from it.
	set, err := capability.ParseSet(ef.capSet)
	if err != nil {
		return nil, nil, UsageErrorf("--caps: %v", err)
	}
	ef.caps = append(set, ef.caps...)
	req, err := ef.request(args)
	if err != nil {
		return nil, nil, err
	}
	pl, err := a.compileExecPlan(ef, req)
	if err != nil {
		return nil, nil, err
	}
	a.ReportPlanWarnings(pl)

	enf := sandbox.EnforcementFor(a.landlockABI())
	if enf.KernelABI == 0 {
		if !ef.allowUnenforced {
			return nil, nil, &ExitError{Code: ExitSandboxFailure,
				Err: fmt.Errorf("exec: %w; refusing to run the command unconfined (use --allow-unenforced to run it anyway)", sandbox.ErrNoLandlock)}
		}
		fmt.Fprintf(a.Stderr, "authbench: WARNING: THIS KERNEL HAS NO LANDLOCK: THE POLICY IS NOT ENFORCED (--allow-unenforced)\n")
	} else if enf.Unenforced&^policy.AccessResolveUnix != 0 {
		// resolve_unix (ABI 9) is missing on most kernels; it is listed
		// by "policy plan" and in the info log.
		a.Log.Warn("Landlock of this kernel cannot enforce some rights; they stay allowed everywhere",
			zap.Int("abi", enf.KernelABI), zap.Stringer("unenforced", enf.Unenforced))
	}
	a.Log.Info("enforcement", zap.Int("landlock_abi", enf.KernelABI), zap.Strings("scopes", enf.Scopes),
		zap.Stringer("unenforced", enf.Unenforced))

	// A profile the user gives is checked here, as bad input, before
	// anything starts; the default one is the daemon's to compile.
	if ef.seccomp != "none" && ef.seccomp != "" {
		if _, err = LoadSeccomp(ef.seccomp, ef.caps); err != nil {
			return nil, nil, err
		}
	}
	return req, pl, nil
}

// compileExecPlan compiles the plan of req (see daemon.CompileRequestPlan)
// after checking its documents under their file names. Bad input (an
// invalid policy or baseline, a pattern too broad to expand) is a usage
// error.
func (a *App) compileExecPlan(ef execFlags, req *runapi.RunRequest) (*policy.Plan, error) {
	if _, err := policy.ParsePolicy(req.Exec.Policy, ef.Policy); err != nil {
		return nil, Usage(err)
	}
	if ef.Baseline != policy.BaselineDefault && ef.Baseline != policy.BaselineNone {
		if _, err := policy.ParseSpec(req.Exec.Baseline, ef.Baseline); err != nil {
			return nil, Usage(fmt.Errorf("baseline: %w", err))
		}
	}
	if _, err := policy.ParseSemantics(ef.Semantics); err != nil {
		return nil, UsageErrorf("--semantics: %v", err)
	}
	pl, err := daemon.CompileRequestPlan(req)
	var re *daemon.RequestError
	switch {
	case errors.As(err, &re):
		return nil, Usage(err)
	case errors.Is(err, policy.ErrTooBroad) || errors.Is(err, policy.ErrUnenforceablePattern) || errors.Is(err, policy.ErrSymlinkTarget):
		return nil, Usage(fmt.Errorf("%s: %w", ef.Policy, err))
	case err != nil:
		return nil, err
	}
	a.Log.Info("plan compiled", zap.String("policy", ef.Policy), zap.String("baseline", pl.Baseline),
		zap.String("semantics", string(pl.Semantics)), zap.Int("rules", len(pl.Rules)),
		zap.Int("wider", len(pl.Wider)), zap.Int("warnings", len(pl.Warnings)))
	return pl, nil
}

// request is the daemon request of `exec`: the daemon compiles the plan
// from it (an embedded one takes the command's compilation of it) and
// enforces it.
func (ef execFlags) request(args []string) (*runapi.RunRequest, error) {
	req := &runapi.ExecRequest{Command: args, Env: os.Environ(), AllowUnenforced: ef.allowUnenforced,
		AllowUnixConnect: ef.allowUnixConnect, Trace: ef.trace != "", Capabilities: ef.caps, Semantics: ef.Semantics, RefuseSymlinks: ef.RefuseSymlinks}
	var err error
	if req.Dir, err = os.Getwd(); err != nil {
		return nil, fmt.Errorf("exec: %w", err)
	}
	if req.Policy, err = ReadFileArg("--policy", ef.Policy); err != nil {
		return nil, err
	}
	switch ef.Baseline {
	case "default", "none":
		req.Baseline, _ = json.Marshal(ef.Baseline)
	default:
		if req.Baseline, err = ReadFileArg("--baseline", ef.Baseline); err != nil {
			return nil, err
		}
	}
	switch ef.seccomp {
	case "":
	case "none":
		req.NoSeccomp = true
	default:
		if req.Seccomp, err = ReadFileArg("--seccomp", ef.seccomp); err != nil {
			return nil, err
		}
	}
	req.UID, req.GID, req.AllowRoot = RequestIdentity(ef.uid, ef.gid)
	return &runapi.RunRequest{Exec: req}, nil
}

// runExec runs the command confined and propagates its exit status.
func (a *App) runExec(ef execFlags, args []string) error {
	if ef.learn != "" {
		return a.runLearn(ef, args)
	}
	_, err := a.execOnce(ef, args)
	return err
}

// execOnce carries out one exec and returns the run's final record (nil
// when it did not start) and the command's status as runExec does.
func (a *App) execOnce(ef execFlags, args []string) (*runapi.Run, error) {
	req, pl, err := a.prepareExec(ef, args)
	if err != nil {
		return nil, err
	}
	var trace *safefile.File
	if ef.trace != "" {
		if err := CheckOutFile(ef.trace); err != nil {
			return nil, UsageErrorf("exec: --trace: %v", err)
		}
		if trace, err = safefile.Create(ef.trace, 0o644); err != nil {
			return nil, UsageErrorf("exec: --trace: %v", err)
		}
		defer trace.Abort()
	}
	rt, err := a.OpenRunAPI(req.Exec.Trace, 0)
	if err != nil {
		return nil, &ExitError{Code: ExitSandboxFailure, Err: fmt.Errorf("exec: %w", err)}
	}
	defer rt.Close()
	rt.plan = pl
	stopRequests, err := a.startExecRequests(ef, req, pl, rt)
	if err != nil {
		return nil, err
	}
	defer stopRequests()
	r, final, err := a.RunRequest(rt, req, WriterOrNil(trace))
	if err != nil {
		if r == nil {
			return nil, err
		}
		return nil, &ExitError{Code: ExitSandboxFailure, Err: fmt.Errorf("exec: run %s: %w", r.run.ID, err)}
	}
	if trace != nil {
		if err := r.finishTrace(trace, final); err != nil {
			a.Log.Warn("trace", zap.Error(err))
		}
	}
	return final, r.ExitStatus(final, "exec")
}

// WriterOrNil is f as an io.Writer, nil (not a nil *safefile.File) when f is.
func WriterOrNil(f *safefile.File) io.Writer {
	if f == nil {
		return nil
	}
	return f
}
