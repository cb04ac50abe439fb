package sandbox

import (
	"debug/buildinfo"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/internal/spawn"
	"github.com/authbench/authbench/policy"
)

// InitCommand is the hidden subcommand name under which the authbench
// binary runs as sandbox-init.
const InitCommand = "sandbox-init"

// InitBinaryName is the small sandbox-init program that `make build`
// puts next to the authbench binary (cli/authbench-sandbox-init): it
// links only this package, so it starts in about a millisecond where the
// whole authbench binary, with every command's package initialisation,
// takes several. Start runs it when InitProgram finds it, else the
// authbench binary itself as InitCommand; both run RunInit.
const InitBinaryName = "authbench-sandbox-init"

// Descriptor numbers of the two pipes as seen by sandbox-init.
const (
	specFD  = 3 // parent → child: the JSON Launch, then EOF (the release)
	errorFD = 4 // child → parent: an error message before exec, else EOF
	// statusFD (Launch.ReportExit only): child → parent: "started" once the
	// command runs, then "exit N" when it ended (N as a shell reports it).
	statusFD = 5
)

// Launch is everything sandbox-init needs to become the target command.
type Launch struct {
	// Path is the program to exec: an absolute path, a relative path
	// containing a "/" (resolved against Dir, as a shell does), or a bare
	// name searched in the PATH of Env (policy.DefaultPath when Env has none;
	// empty and relative PATH entries are skipped). The search is made
	// like execvp, with the command's final identity and restrictions.
	Path string `json:"path"`
	// Args is argv, including argv[0].
	Args []string `json:"args"`
	// Env is the environment of the command.
	Env []string `json:"env"`
	// Dir is the working directory, "" for the launcher's. It is
	// entered after the identity change and Landlock, so with the
	// command's own rights.
	Dir string `json:"dir,omitempty"`

	// The restrictions below are applied in this order (Dir is entered
	// after the identity); the zero value restricts nothing.

	// HidePaths are paths the tree must not see: sandbox-init, in a
	// mount namespace of its own with private mounts, mounts an empty
	// read-only tmpfs over each directory and /dev/null, bound read-only,
	// over any other file (missing ones are skipped; a path that is not
	// absolute fails). Needs a root caller.
	HidePaths []string `json:"hide_paths,omitempty"`
	// CloseFDs closes every inherited descriptor above stderr at exec.
	CloseFDs bool `json:"close_fds,omitempty"`
	// Plan is the Landlock rule plan; nil means no Landlock.
	Plan *policy.Plan `json:"plan,omitempty"`
	// AllowUnenforced lets a run with a Plan go on, unconfined, on a
	// kernel without Landlock; otherwise sandbox-init refuses.
	AllowUnenforced bool `json:"allow_unenforced,omitempty"`
	// LandlockABI, when set, caps the Landlock ABI used (to reproduce an
	// older kernel); 0 uses the kernel's.
	LandlockABI int `json:"landlock_abi,omitempty"`
	// DropCapabilities leaves the tree no capability but those named in
	// Capabilities, as Docker sets a container's: the bounding set keeps
	// only them; a uid-0 tree holds them effective and permitted, any
	// other uid in its bounding set only; the inheritable and ambient
	// sets are empty.
	DropCapabilities bool `json:"drop_capabilities,omitempty"`
	// Capabilities names the capabilities the tree keeps (for example
	// "CAP_CHOWN", or capability.Docker); an unknown name fails the
	// spec. They need DropCapabilities and a caller holding them.
	Capabilities []string `json:"capabilities,omitempty"`
	// UID and GID, when set, are the identity to drop to.
	UID *int `json:"uid,omitempty"`
	GID *int `json:"gid,omitempty"`
	// Groups are the supplementary groups of that identity (none when
	// empty); they need UID and GID.
	Groups []int `json:"groups,omitempty"`
	// NoNewPrivs sets no_new_privs (always set when Plan or Seccomp is).
	NoNewPrivs bool `json:"no_new_privs,omitempty"`
	// Seccomp is the compiled seccomp filter; nil means none.
	Seccomp *Filter `json:"seccomp,omitempty"`
	// RefuseUnixConnect keeps the tree from connecting to pathname unix
	// sockets its plan does not grant: by Landlock's resolve_unix where
	// the kernel has it (ABI 9), else, with a Seccomp filter, by refusing
	// unix sockets but socketpair (see withUnixSocketsRefused). For trees
	// on the host's file system (bare-host exec).
	RefuseUnixConnect bool `json:"refuse_unix_connect,omitempty"`

	// WaitTree keeps sandbox-init, confined like the command, as the
	// tree's reaper: it starts the command as its child, forwards the
	// signals it receives to it, and exits only when every process of the
	// tree has (orphans are reparented to it), with the command's status.
	// Without it sandbox-init becomes the command, and the tree ends with
	// it when it is the init of a PID namespace.
	WaitTree bool `json:"wait_tree,omitempty"`
	// ReportExit (with WaitTree) reports the command's start and end on
	// the gate's status pipe (Gate.CommandEnded) while the reaper stays
	// for the rest of the tree: what the command left running (a server
	// it started) keeps running, confined as it was, until it ends or
	// the launcher kills the tree.
	ReportExit bool `json:"report_exit,omitempty"`
}

// Child is a sandbox-init process waiting at its gate.
type Child struct {
	cmd  *exec.Cmd
	gate *Gate
	spec Launch
}

// Start launches self (the authbench binary) as sandbox-init for spec,
// stopped at the gate. The caller must call Release (or Kill) and Wait.
// stdio are the child's stdin, stdout and stderr.
func Start(self string, spec Launch, stdin io.Reader, stdout, stderr io.Writer) (*Child, error) {
	return StartWith(self, spec, LaunchOptions{}, stdin, stdout, stderr)
}

// LaunchOptions choose how the sandbox-init process is created.
type LaunchOptions struct {
	// OwnPIDNamespace starts it as the init of a new PID namespace: the
	// whole tree then dies with it (KillTree), and it dies with its
	// parent (the parent-death signal).
	OwnPIDNamespace bool
	// OwnMountNamespace starts it in a new mount namespace (CLONE_NEWNS;
	// only possible as root), so that Launch.HidePaths and anything else
	// mounted for the tree stay out of the launcher's namespace.
	OwnMountNamespace bool
}

// StartWith is Start with launch options.
func StartWith(self string, spec Launch, opts LaunchOptions, stdin io.Reader, stdout, stderr io.Writer) (*Child, error) {
	gate, err := NewGate(spec)
	if err != nil {
		return nil, fmt.Errorf("start sandbox: %w", err)
	}
	prog := InitProgram(self)
	cmd, startErr := startInit(prog, gate, opts, stdin, stdout, stderr)
	if prog != self && errors.Is(startErr, os.ErrPermission) {
		// A launcher that is itself confined (an exec nested in a tree
		// whose policy lets it run authbench, not the helper) runs the
		// binary it is allowed to run.
		prog = self
		cmd, startErr = startInit(prog, gate, opts, stdin, stdout, stderr)
	}
	gate.Started()
	if startErr != nil {
		gate.Close()
		return nil, fmt.Errorf("start sandbox-init %s: %w", prog, startErr)
	}
	return &Child{cmd: cmd, gate: gate, spec: spec}, nil
}

// startInit starts prog as sandbox-init with the child's ends of gate.
func startInit(prog string, gate *Gate, opts LaunchOptions, stdin io.Reader, stdout, stderr io.Writer) (*exec.Cmd, error) {
	if opts.OwnPIDNamespace {
		if err := CheckStatic(prog); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command(prog, InitCommand)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	cmd.ExtraFiles = gate.ChildFiles() // fds 3 and 4
	// sandbox-init only restricts and execs: one P is plenty, and fewer
	// threads make a reaper's all-thread Landlock enforcement cheaper.
	// The command gets spec.Env.
	cmd.Env = []string{"GOMAXPROCS=1"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if opts.OwnPIDNamespace {
		cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWPID
	}
	if opts.OwnMountNamespace {
		cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWNS
	}
	return cmd, spawn.Start(cmd) // the parent-death signal then means the process died
}

// InitProgram is the program that runs sandbox-init for the authbench
// binary self: InitBinaryName in self's directory when it is as
// trustworthy as self (a regular executable file, owned by root or by
// self's owner, writable by its owner only), else self. Either is
// started with the argument InitCommand.
func InitProgram(self string) string {
	helper := filepath.Join(filepath.Dir(self), InitBinaryName)
	if TrustedHelper(helper, self) {
		return helper
	}
	return self
}

// TrustedHelper reports whether helper may run in place of self (as
// sandbox-init, or as the full CLI the thin front hands commands to): it
// runs with self's privileges (before any restriction), so it must be no
// easier to replace than self.
func TrustedHelper(helper, self string) bool {
	var hst, sst unix.Stat_t
	if unix.Stat(helper, &hst) != nil || unix.Stat(self, &sst) != nil {
		return false
	}
	return helperModeOK(hst.Mode, hst.Uid, sst.Uid)
}

// helperModeOK is the check of TrustedHelper on a stat result: a regular
// file, executable by its owner, not writable by group or others, owned
// by root or by selfUID.
func helperModeOK(mode, uid, selfUID uint32) bool {
	return mode&unix.S_IFMT == unix.S_IFREG && mode&0o100 != 0 && mode&0o022 == 0 &&
		(uid == 0 || uid == selfUID)
}

// Pid is the child's process id; it stays the same across the exec.
func (c *Child) Pid() int { return c.cmd.Process.Pid }

// Release opens the gate (see Gate.Release).
func (c *Child) Release() error { return c.gate.Release() }

// Kill ends the child (used when preparation failed before Release).
func (c *Child) Kill() error {
	c.gate.Close()
	return c.cmd.Process.Kill()
}

// ErrCgoPIDNamespace: a cgo build of authbench cannot enforce Landlock
// as the init of a PID namespace (libcap's psx then signals the threads
// listed in /proc/<getpid()>/task, which is the host's pid 1 there).
var ErrCgoPIDNamespace = errors.New("start sandbox: this authbench binary was built with cgo, which cannot run sandboxes in their own PID namespace; build it with CGO_ENABLED=0 (make build)")

// CheckStatic returns ErrCgoPIDNamespace when the authbench binary bin
// was built with cgo: it must not be sandbox-init in a PID namespace (its
// own, or a container's).
func CheckStatic(bin string) error {
	if builtWithCgo(bin) {
		return ErrCgoPIDNamespace
	}
	return nil
}

// builtWithCgo reports whether the Go binary bin was built with cgo
// enabled (answers are cached per path).
func builtWithCgo(bin string) bool {
	if v, ok := cgoBuilds.Load(bin); ok {
		return v.(bool)
	}
	cgo := false
	if info, err := buildinfo.ReadFile(bin); err == nil {
		for _, s := range info.Settings {
			if s.Key == "CGO_ENABLED" {
				cgo = s.Value == "1"
			}
		}
	}
	cgoBuilds.Store(bin, cgo)
	return cgo
}

var cgoBuilds sync.Map

// KillTree kills the command and, when it is the init of its own PID
// namespace, every process of its tree: the kernel kills the whole
// namespace when its init dies. Without a namespace only the root
// process is killed.
func (c *Child) KillTree() error {
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("kill sandbox tree %d: %w", c.Pid(), err)
	}
	return nil
}

// Wait waits for the command and returns its exit status the way a shell
// reports it: the exit code, or 128+signal.
func (c *Child) Wait() (int, error) {
	err := c.cmd.Wait()
	if err == nil {
		return 0, nil
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok {
			return shellStatus(ws), nil
		}
		return ee.ExitCode(), nil
	}
	return -1, fmt.Errorf("wait for %s: %w", c.spec.Path, err)
}

// Confined returns s with the restrictions `authbench exec` applies (the
// Confined option of a Confinement): the Landlock plan, the seccomp
// filter (nil for none; see DefaultFilter), inherited descriptors above
// stderr closed, no capabilities but s.Capabilities (see
// DropCapabilities), and no_new_privs. Identity changes (UID, GID) are
// left to the caller. For tests that start from a Launch; callers build
// one with NewConfinement.
func (s Launch) Confined(plan *policy.Plan, filter *Filter) Launch {
	c := Confinement{spec: s}
	_ = Confined(plan, filter)(&c) // its options cannot fail
	return c.spec
}
