package env

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/authbench/authbench/internal/spawn"
)

// DefaultRuncRoot is where runc keeps the state of authbench's containers,
// apart from any other runc user's.
const DefaultRuncRoot = "/run/authbench/runc"

// Runc runs OCI bundles with the runc binary.
type Runc struct {
	// Bin is the runc binary, "runc" (from PATH) when empty.
	Bin string
	// Root is runc's state directory (--root), DefaultRuncRoot when empty.
	Root string
	// NoPivot uses chroot instead of pivot_root; needed only when the
	// rootfs lives on a ramfs (not the case on our hosts).
	NoPivot bool
}

// Stdio are a container's standard streams; nil ones are /dev/null.
// ExtraFiles become the container process's descriptors 3, 4, ...
// (runc run --preserve-fds).
type Stdio struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	ExtraFiles     []*os.File
}

// WriteBundle creates the bundle directory dir and writes spec to
// dir/config.json.
func WriteBundle(dir string, spec *specs.Spec) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create bundle: %w", err)
	}
	data, err := json.MarshalIndent(spec, "", "  ")
	if err != nil {
		return fmt.Errorf("encode config.json: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), data, 0o600); err != nil {
		return fmt.Errorf("write config.json: %w", err)
	}
	return nil
}

func (r Runc) bin() string {
	if r.Bin == "" {
		return "runc"
	}
	return r.Bin
}

func (r Runc) root() string {
	if r.Root == "" {
		return DefaultRuncRoot
	}
	return r.Root
}

// RunArgv is the argv of `runc run` for the bundle in dir as container id.
func (r Runc) RunArgv(bundle, id string) []string { return r.runArgv(bundle, id, 0, "") }

// runArgv adds --preserve-fds for extra descriptors and --pid-file.
func (r Runc) runArgv(bundle, id string, extraFiles int, pidFile string) []string {
	argv := []string{r.bin(), "--root", r.root(), "run", "--bundle", bundle}
	if r.NoPivot {
		argv = append(argv, "--no-pivot")
	}
	if extraFiles > 0 {
		argv = append(argv, "--preserve-fds", strconv.Itoa(extraFiles))
	}
	if pidFile != "" {
		argv = append(argv, "--pid-file", pidFile)
	}
	return append(argv, id)
}

// KillArgv is the argv of `runc kill --all id signal`.
func (r Runc) KillArgv(id string, sig syscall.Signal) []string {
	return []string{r.bin(), "--root", r.root(), "kill", "--all", id, strconv.Itoa(int(sig))}
}

// DeleteArgv is the argv of `runc delete --force id`.
func (r Runc) DeleteArgv(id string) []string {
	return []string{r.bin(), "--root", r.root(), "delete", "--force", id}
}

// RunResult is how a container run ended.
type RunResult struct {
	// ExitCode is the container init's exit status (128+n when killed by
	// signal n), -1 when unknown.
	ExitCode int
	// TimedOut is set when ctx ended the run.
	TimedOut bool
	// Duration is the wall time of `runc run`.
	Duration time.Duration
}

// Run runs the bundle in the foreground as container id and waits for it.
// When ctx ends first, every process of the container is killed and the
// result says TimedOut. The container is deleted before Run returns, in
// every case. A non-zero exit of the command is not an error.
func (r Runc) Run(ctx context.Context, bundle, id string, stdio Stdio) (RunResult, error) {
	c, err := r.Start(bundle, id, stdio)
	if err != nil {
		return RunResult{ExitCode: -1}, err
	}
	return c.Wait(ctx)
}

// Container is a container started by Start: its runc run, until it is
// waited for (Wait), stopped (Stop) or killed (Kill), each of which
// deletes it.
type Container struct {
	r       Runc
	id      string
	pidFile string
	cmd     *exec.Cmd
	runcErr *bytes.Buffer
	start   time.Time
	// exited is closed once runc ended; runErr is then its end.
	exited chan struct{}
	runErr error
	// killOnce sends Kill's kill once.
	killOnce sync.Once
}

// Start starts the bundle as container id without waiting for it; Wait,
// Stop or Kill must follow (each deletes the container).
func (r Runc) Start(bundle, id string, stdio Stdio) (*Container, error) {
	pidFile := filepath.Join(bundle, "container.pid")
	argv := r.runArgv(bundle, id, len(stdio.ExtraFiles), pidFile)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout = stdio.Stdin, stdio.Stdout
	cmd.ExtraFiles = stdio.ExtraFiles
	runcErr := &bytes.Buffer{}
	cmd.Stderr = &tailWriter{w: stdio.Stderr, tail: runcErr}
	// runc dies with its caller (a daemon killed with SIGKILL), and an
	// init that asks for it dies with runc: sandbox-init does, so an agent
	// container ends with the daemon. Runs are otherwise ended through
	// ctx (runc kill --all), which leaves runc to clean up.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	c := &Container{r: r, id: id, pidFile: pidFile, cmd: cmd, runcErr: runcErr, start: time.Now(), exited: make(chan struct{})}
	if err := spawn.Start(cmd); err != nil {
		r.Delete(id)
		return nil, fmt.Errorf("start runc: %w", err)
	}
	go func() {
		c.runErr = cmd.Wait()
		close(c.exited)
	}()
	return c, nil
}

// Pid waits until runc has created the container process and returns its
// pid (in the host's PID namespace).
func (c *Container) Pid(ctx context.Context) (int, error) {
	for {
		if pid, ok, err := c.readPid(); ok || err != nil {
			return pid, err
		}
		select {
		case <-c.exited:
			// A container that started and ended between two polls (an init
			// service exiting at once) left its pid file: it did start.
			if pid, ok, err := c.readPid(); ok || err != nil {
				return pid, err
			}
			return 0, fmt.Errorf("runc run %s ended before its container started: %s", c.id, lastLines(c.runcErr.String(), 5))
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// readPid reads the container's pid file: ok once runc has written it.
func (c *Container) readPid() (pid int, ok bool, err error) {
	data, err := os.ReadFile(c.pidFile)
	if err != nil || len(bytes.TrimSpace(data)) == 0 {
		return 0, false, nil
	}
	pid, err = strconv.Atoi(string(bytes.TrimSpace(data)))
	if err != nil {
		return 0, false, fmt.Errorf("runc pid file %s: %w", c.pidFile, err)
	}
	return pid, true, nil
}

// Wait waits for the container to end; when ctx ends first, every process
// of the container is killed (Kill) and the result says TimedOut. The
// container is deleted before Wait returns. Wait may be called again (and
// alongside Stop or Kill): it then reports the same end.
func (c *Container) Wait(ctx context.Context) (RunResult, error) {
	res := RunResult{ExitCode: -1}
	defer c.r.Delete(c.id)
	select {
	case <-c.exited:
	case <-ctx.Done():
		res.TimedOut = true
		c.Kill()
	}
	err := c.runErr
	res.Duration = time.Since(c.start)
	var ee *exec.ExitError
	switch {
	case err == nil:
		res.ExitCode = 0
	case errors.As(err, &ee):
		res.ExitCode = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.ExitCode = 128 + int(ws.Signal())
		}
	default:
		return res, fmt.Errorf("runc run %s: %w", c.id, err)
	}
	if res.ExitCode != 0 && !res.TimedOut && bytes.Contains(c.runcErr.Bytes(), []byte("level=error")) {
		return res, fmt.Errorf("runc run %s: %s", c.id, lastLines(c.runcErr.String(), 5))
	}
	return res, nil
}

// Kill kills every process of the container, waits for runc to end and
// deletes the container. A container that runc is still creating cannot
// be killed yet: the kill is retried until it exists (or runc ended);
// runc itself is killed after 10 s. Calls after the first wait for the
// first's end.
func (c *Container) Kill() {
	c.killOnce.Do(func() {
		if c.Exited() {
			return
		}
		giveUp := time.After(10 * time.Second)
	kill:
		for {
			var retry <-chan time.Time // nil (never) once the kill is sent
			if c.r.Kill(c.id, syscall.SIGKILL) != nil {
				retry = time.After(20 * time.Millisecond)
			}
			select {
			case <-c.exited:
				break kill
			case <-giveUp:
				_ = c.cmd.Process.Kill()
				<-c.exited
				break kill
			case <-retry:
			}
		}
	})
	<-c.exited
	c.r.Delete(c.id)
}

// Stop asks every process of the container to end (SIGTERM), kills what
// is left after grace (Kill), and deletes the container once runc ended;
// it reports whether the container ended within grace.
func (c *Container) Stop(grace time.Duration) bool {
	if c.Exited() {
		c.r.Delete(c.id)
		return true
	}
	_ = c.r.Kill(c.id, syscall.SIGTERM) // not yet created, or already gone: Kill below deals with it
	select {
	case <-c.exited:
		c.r.Delete(c.id)
		return true
	case <-time.After(grace):
		c.Kill()
		return false
	}
}

// ID is the container's runc id.
func (c *Container) ID() string { return c.id }

// Done is closed once the container's runc run ended.
func (c *Container) Done() <-chan struct{} { return c.exited }

// Kill sends sig to every process of container id.
func (r Runc) Kill(id string, sig syscall.Signal) error {
	argv := r.KillArgv(id, sig)
	if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
		return fmt.Errorf("runc kill %s: %w: %s", id, err, lastLines(string(out), 3))
	}
	return nil
}

// Delete removes container id (killing what is left of it); deleting a
// container that does not exist is not an error.
func (r Runc) Delete(id string) error {
	argv := r.DeleteArgv(id)
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	if err != nil && !bytes.Contains(out, []byte("does not exist")) {
		return fmt.Errorf("runc delete %s: %w: %s", id, err, lastLines(string(out), 3))
	}
	return nil
}

// tailWriter copies to w (if any) and keeps the last bytes in tail.
type tailWriter struct {
	w    io.Writer
	tail *bytes.Buffer
}

const maxTail = 16 << 10

func (t *tailWriter) Write(p []byte) (int, error) {
	t.tail.Write(p)
	if t.tail.Len() > 2*maxTail {
		b := t.tail.Bytes()
		keep := append([]byte(nil), b[len(b)-maxTail:]...)
		t.tail.Reset()
		t.tail.Write(keep)
	}
	if t.w != nil {
		return t.w.Write(p)
	}
	return len(p), nil
}

// ExecArgv is the argv of `runc exec` running argv in container id as
// uid:gid, in cwd, with env.
func (r Runc) ExecArgv(id string, uid, gid uint32, cwd string, env, argv []string) []string {
	out := []string{r.bin(), "--root", r.root(), "exec", "--user", fmt.Sprintf("%d:%d", uid, gid)}
	if cwd != "" {
		out = append(out, "--cwd", cwd)
	}
	for _, e := range env {
		out = append(out, "--env", e)
	}
	return append(append(out, id), argv...)
}

// Exec runs argv in the running container id and returns its exit status
// (a health probe); ctx ending kills it. Its output goes to log.
func (r Runc) Exec(ctx context.Context, id string, uid, gid uint32, cwd string, env, argv []string, log io.Writer) (int, error) {
	a := r.ExecArgv(id, uid, gid, cwd, env, argv)
	cmd := exec.CommandContext(ctx, a[0], a[1:]...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) } // runc passes it on
	cmd.WaitDelay = 2 * time.Second
	cmd.Stdout, cmd.Stderr = log, log
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, nil
	case ctx.Err() != nil:
		return -1, ctx.Err()
	case errors.As(err, &ee):
		return ee.ExitCode(), nil
	}
	return -1, fmt.Errorf("runc exec %s: %w", id, err)
}

// Exited reports whether the container's init has ended (Wait then
// returns at once).
func (c *Container) Exited() bool {
	select {
	case <-c.exited:
		return true
	default:
		return false
	}
}
