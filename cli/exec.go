package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/sandbox"
)

// exitSandboxFailure is exec's status when authbench itself could not
// run the command confined (as `env` and `docker run` use 125).
const exitSandboxFailure = 125

// execFlags are the flags of `authbench exec`.
type execFlags struct {
	planFlags
	seccomp         string
	uid, gid        int
	allowUnenforced bool
	trace           string
}

func (a *app) execCmd() *cobra.Command {
	var ef execFlags
	cmd := &cobra.Command{
		Use:   "exec --policy FILE [--baseline default|none|SPEC.json] [--seccomp FILE] [--uid N --gid N] [--allow-unenforced] [--trace FILE] -- CMD [ARGS...]",
		Short: "Run a command confined to a policy with Landlock, seccomp and no_new_privs",
		Long: `Run CMD with the file access of the policy (see "authbench policy plan"),
and exit with CMD's status.

Without --trace, authbench confines itself and becomes CMD (same pid); with
--trace, a gated re-execution of authbench (sandbox-init) does so once the
tracer follows its pid. Either way, in this order, it: closes every inherited descriptor except stdin, stdout and stderr;
restricts itself with Landlock (every ABI from 1 up, best effort, plus the
ABI-6 scopes: no abstract unix sockets to or signals for processes outside);
drops all but a few capabilities from the bounding set (when root); drops
to --uid/--gid with no supplementary groups; sets no_new_privs; installs the
seccomp profile (--seccomp FILE in the OCI/Docker format, default: see
"authbench seccomp default"; "none" for no filter); and execs CMD.

A kernel without Landlock is refused unless --allow-unenforced is given.
With --trace FILE the run is traced (eBPF): events are written to FILE as
JSON lines (a program run through the dynamic loader adds an exec event of
the program whose path2 is the loader), the plan and what this kernel
enforces of it to FILE.plan.json, and the denied accesses (path, axis,
operation) are listed on stderr at the end.

Exit status: CMD's status (128+N when killed by signal N); 126 when CMD
cannot be executed (no execute rule, or not executable); 127 when it is not
found; 125 when authbench could not confine it; 2 for bad input (nothing
is started).`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("exec: missing command (usage: authbench exec --policy FILE -- CMD [ARGS...])")
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error { return a.runExec(ef, args) },
	}
	cmd.Flags().SetInterspersed(false)
	ef.register(cmd)
	cmd.Flags().StringVar(&ef.seccomp, "seccomp", "", "seccomp profile `FILE` (OCI LinuxSeccomp / Docker format); \"none\" for no filter")
	cmd.Flags().IntVar(&ef.uid, "uid", -1, "run as user `N` (with --gid; root only)")
	cmd.Flags().IntVar(&ef.gid, "gid", -1, "run as group `N` (with --uid)")
	cmd.Flags().BoolVar(&ef.allowUnenforced, "allow-unenforced", false, "run even if the kernel has no Landlock (the policy is then NOT enforced)")
	cmd.Flags().StringVar(&ef.trace, "trace", "", "trace the run with eBPF and write the events to `FILE` as JSON lines")
	return cmd
}

// execSetup is everything prepared before the command starts.
type execSetup struct {
	spec sandbox.Spec
	enf  sandbox.Enforcement
}

// prepareExec checks the input and builds the sandbox spec; nothing is
// started, so every problem here leaves the system untouched.
func (a *app) prepareExec(ef execFlags, args []string) (*execSetup, error) {
	if (ef.uid < 0) != (ef.gid < 0) {
		return nil, usageErrorf("--uid and --gid must be given together")
	}
	pl, err := a.compilePlan(ef.planFlags, "/")
	if err != nil {
		return nil, err
	}
	a.reportPlanWarnings(pl)

	enf := sandbox.EnforcementFor(landlockABI())
	if enf.KernelABI == 0 {
		if !ef.allowUnenforced {
			return nil, &ExitError{Code: exitSandboxFailure,
				Err: fmt.Errorf("exec: %w; refusing to run the command unconfined (use --allow-unenforced to run it anyway)", sandbox.ErrNoLandlock)}
		}
		fmt.Fprintf(a.stderr, "authbench: WARNING: THIS KERNEL HAS NO LANDLOCK: THE POLICY IS NOT ENFORCED (--allow-unenforced)\n")
	} else if enf.Unenforced&^policy.AccessResolveUnix != 0 {
		// resolve_unix (ABI 9) is missing on most kernels; it is listed
		// by "policy plan" and in the info log.
		a.log.Warn("Landlock of this kernel cannot enforce some rights; they stay allowed everywhere",
			zap.Int("abi", enf.KernelABI), zap.Stringer("unenforced", enf.Unenforced))
	}
	a.log.Info("enforcement", zap.Int("landlock_abi", enf.KernelABI), zap.Strings("scopes", enf.Scopes),
		zap.Stringer("unenforced", enf.Unenforced))

	var filter *sandbox.Filter
	if ef.seccomp != "none" {
		if filter, err = loadSeccomp(ef.seccomp, nil); err != nil {
			return nil, err
		}
	}

	prog, err := exec.LookPath(args[0])
	if err != nil {
		code := exitNotFound
		if errors.Is(err, os.ErrPermission) {
			code = exitNotExecutable
		}
		return nil, &ExitError{Code: code, Err: fmt.Errorf("exec: %s: %w", args[0], lookupErr(err))}
	}
	if !strings.HasPrefix(prog, "/") {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("exec: %w", err)
		}
		prog = wd + "/" + prog
	}
	spec := sandbox.Spec{Path: prog, Args: args, Env: os.Environ(), AllowUnenforced: ef.allowUnenforced}.Confined(pl, filter)
	if ef.uid >= 0 {
		uid, gid := ef.uid, ef.gid
		spec.UID, spec.GID = &uid, &gid
	}
	return &execSetup{spec: spec, enf: enf}, nil
}

// runExec runs the command confined and propagates its exit status.
func (a *app) runExec(ef execFlags, args []string) error {
	setup, err := a.prepareExec(ef, args)
	if err != nil {
		return err
	}
	if c := a.daemonClient(); c != nil {
		return a.runExecRemote(c, ef, args)
	}
	var tr *execTrace
	if ef.trace != "" {
		if tr, err = a.openExecTrace(ef.trace, setup.spec.Plan, setup.enf); err != nil {
			return &ExitError{Code: exitSandboxFailure, Err: fmt.Errorf("exec: --trace: %w", err)}
		}
	} else if a.stdout == os.Stdout && a.stderr == os.Stderr {
		// Nothing needs the pid before the exec: restrict this process
		// and become the command (one process start instead of two).
		_ = a.log.Sync()
		return execError(sandbox.Exec(setup.spec))
	}
	self, err := os.Executable()
	if err != nil {
		tr.abort()
		return &ExitError{Code: exitSandboxFailure, Err: fmt.Errorf("exec: find own executable: %w", err)}
	}
	child, err := sandbox.Start(self, setup.spec, os.Stdin, a.stdout, a.stderr)
	if err != nil {
		tr.abort()
		return &ExitError{Code: exitSandboxFailure, Err: fmt.Errorf("exec: %w", err)}
	}
	if err := tr.track(child.Pid()); err != nil {
		_ = child.Kill()
		_, _ = child.Wait()
		tr.abort()
		return &ExitError{Code: exitSandboxFailure, Err: fmt.Errorf("exec: --trace: %w", err)}
	}
	stopSignals := forwardSignals(child.Pid())
	relErr := child.Release()
	code, waitErr := child.Wait()
	stopSignals()
	if err := tr.finish(a); err != nil {
		a.log.Warn("trace", zap.Error(err))
	}
	if waitErr != nil {
		return &ExitError{Code: exitSandboxFailure, Err: fmt.Errorf("exec: %w", waitErr)}
	}
	if relErr != nil {
		code = exitSandboxFailure
		var ie *sandbox.InitError
		if errors.As(relErr, &ie) {
			code = ie.ShellStatus()
		}
		return &ExitError{Code: code, Err: fmt.Errorf("exec: %w", relErr)}
	}
	a.exitCode = code
	return nil
}

// execError turns a failure of sandbox.Exec into the exit status a shell
// would use: 127 when the command is missing, 126 when it cannot be
// executed, 125 when it could not be confined.
func execError(err error) error {
	var ie *sandbox.InitError
	if errors.As(err, &ie) {
		return &ExitError{Code: ie.ShellStatus(), Err: fmt.Errorf("exec: %w", err)}
	}
	return &ExitError{Code: exitSandboxFailure, Err: fmt.Errorf("exec: %w", err)}
}

// landlockABI returns the kernel's Landlock ABI; tests replace it to play
// a kernel without Landlock.
var landlockABI = sandbox.KernelLandlockABI
