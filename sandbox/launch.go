package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// InitCommand is the hidden subcommand name under which the authbench
// binary runs as sandbox-init.
const InitCommand = "sandbox-init"

// Descriptor numbers of the two pipes as seen by sandbox-init.
const (
	specFD  = 3 // parent → child: the JSON Spec, then EOF (the release)
	errorFD = 4 // child → parent: an error message before exec, else EOF
)

// Spec is everything sandbox-init needs to become the target command.
type Spec struct {
	// Path is the absolute path of the program to exec.
	Path string `json:"path"`
	// Args is argv, including argv[0].
	Args []string `json:"args"`
	// Env is the environment of the command.
	Env []string `json:"env"`
	// Dir is the working directory, "" for the current one.
	Dir string `json:"dir,omitempty"`
}

// Child is a sandbox-init process waiting at its gate.
type Child struct {
	cmd     *exec.Cmd
	specW   *os.File
	errR    *os.File
	spec    Spec
	started bool
}

// Start launches self (the authbench binary) as sandbox-init for spec,
// stopped at the gate. The caller must call Release (or Kill) and Wait.
// stdio are the child's stdin, stdout and stderr.
func Start(self string, spec Spec, stdin io.Reader, stdout, stderr io.Writer) (*Child, error) {
	if !filepath.IsAbs(spec.Path) {
		return nil, fmt.Errorf("start sandbox: program path %q is not absolute", spec.Path)
	}
	specR, specW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start sandbox: spec pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		specR.Close()
		specW.Close()
		return nil, fmt.Errorf("start sandbox: error pipe: %w", err)
	}
	cmd := exec.Command(self, InitCommand)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	cmd.ExtraFiles = []*os.File{specR, errW} // fds 3 and 4
	cmd.Env = []string{}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	startErr := cmd.Start()
	specR.Close()
	errW.Close()
	if startErr != nil {
		specW.Close()
		errR.Close()
		return nil, fmt.Errorf("start sandbox-init %s: %w", self, startErr)
	}
	return &Child{cmd: cmd, specW: specW, errR: errR, spec: spec, started: true}, nil
}

// Pid is the child's process id; it stays the same across the exec.
func (c *Child) Pid() int { return c.cmd.Process.Pid }

// Release opens the gate: the child reads its spec, restricts itself and
// execs. Release returns once the exec happened, or with the child's
// error if it could not get there (the child has then exited).
func (c *Child) Release() error {
	enc := json.NewEncoder(c.specW)
	werr := enc.Encode(c.spec)
	c.specW.Close()
	msg, rerr := io.ReadAll(c.errR)
	c.errR.Close()
	if len(msg) > 0 {
		return &InitError{Msg: strings.TrimSpace(string(msg))}
	}
	if werr != nil {
		return fmt.Errorf("send spec to sandbox-init: %w", werr)
	}
	if rerr != nil {
		return fmt.Errorf("read sandbox-init status: %w", rerr)
	}
	return nil
}

// Kill ends the child (used when preparation failed before Release).
func (c *Child) Kill() error {
	c.specW.Close()
	c.errR.Close()
	return c.cmd.Process.Kill()
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
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal()), nil
		}
		return ee.ExitCode(), nil
	}
	return -1, fmt.Errorf("wait for %s: %w", c.spec.Path, err)
}

// InitError is a failure reported by sandbox-init before it could exec.
type InitError struct{ Msg string }

func (e *InitError) Error() string { return e.Msg }
