package toolbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// drainGrace is how long the output is still read after the shell exited
// (a background process may hold the pipe open).
const drainGrace = 100 * time.Millisecond

// maxStateBytes bounds the exported environment carried between calls
// (it travels as one argument).
const maxStateBytes = 120 << 10

// wrapper runs one command like a line of an interactive shell session:
// it restores the exported environment of the previous call ($2), runs
// the command ($1) with eval, and on exit writes a trailer to descriptor
// 3: the status, the working directory and `export -p`, NUL-separated.
const wrapper = `__ab_cmd=$1 __ab_state=$2
__ab_exit() {
	__ab_s=$?
	{ printf '%s\000%s\000' "$__ab_s" "$PWD"; export -p; printf '\000END\000'; } >&3 2>/dev/null
}
trap __ab_exit EXIT
if [ -n "$__ab_state" ]; then eval "$__ab_state" 2>/dev/null; fi
unset __ab_state
set --
eval "$__ab_cmd"
`

const trailerEnd = "\x00END\x00"

// shell is the session's state between calls: the shell to run, its
// working directory and exported environment.
type shell struct {
	o     Options
	path  string
	cwd   string
	state string // export -p of the last call; "" before the first
}

func newShell(o Options) *shell { return &shell{o: o, path: o.Shell, cwd: o.Dir} }

// findShell is bash from PATH, else /bin/sh.
func findShell(env []string) string {
	for _, dir := range filepath.SplitList(lookupEnv(env, "PATH", defaultPath)) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		if p := filepath.Join(dir, "bash"); isExecutable(p) {
			return p
		}
	}
	return "/bin/sh"
}

func (sh *shell) timeout(req Request) (time.Duration, error) {
	switch {
	case req.TimeoutS < 0:
		return 0, errors.New("timeout_s must not be negative")
	case req.TimeoutS == 0:
		return sh.o.DefaultTimeout, nil
	}
	d := time.Duration(req.TimeoutS * float64(time.Second))
	return min(d, sh.o.MaxTimeout), nil
}

// run runs one command.
func (sh *shell) run(req Request) Result {
	if req.Command == "" {
		return errorResult(req.ID, errors.New("missing command"))
	}
	timeout, err := sh.timeout(req)
	if err != nil {
		return errorResult(req.ID, err)
	}
	out := newBounded(sh.o.MaxOutput)
	var notes []string
	p, err := sh.start(req.Command, out, &notes)
	if err != nil {
		return errorResult(req.ID, err)
	}
	timedOut := p.wait(timeout)
	p.drain()
	res := Result{ID: req.ID, TimedOut: timedOut}
	code := exitCode(p.cmd.ProcessState)
	res.ExitCode = &code
	if tr, ok := parseTrailer(p.trailer.Bytes()); ok {
		sh.cwd = tr.cwd
		if len(tr.exports) <= maxStateBytes {
			sh.state = tr.exports
		} else {
			notes = append(notes, fmt.Sprintf("the exported environment (%d bytes) is larger than %d bytes: this call's exports are not kept", len(tr.exports), maxStateBytes))
		}
	} else if !timedOut {
		notes = append(notes, "the shell ended without reporting its state (exec, a trap or a signal): the next command starts in the previous directory and environment")
	}
	if timedOut {
		notes = append(notes, fmt.Sprintf("timed out after %s: the command's process group was killed; the working directory and environment of before the command are kept", timeout))
	}
	if p.held {
		notes = append(notes, "a background process still holds the output: what it writes later is not shown")
	}
	res.Truncated = out.dropped() > 0
	res.Output = out.String()
	for _, n := range notes {
		res.Output += "\n[" + n + "]"
	}
	return res
}

// process is one running shell call.
type process struct {
	cmd            *exec.Cmd
	outR, trailerR *os.File
	outDone        chan struct{}
	trailerDone    chan struct{}
	trailer        bytes.Buffer
	held           bool
}

// start starts the wrapper in its own process group with the session's
// directory and environment; bash refused by the kernel falls back to
// /bin/sh, a vanished directory to the first one.
func (sh *shell) start(command string, out io.Writer, notes *[]string) (*process, error) {
	if st, err := os.Stat(sh.cwd); (err != nil || !st.IsDir()) && sh.cwd != sh.o.Dir {
		if err == nil {
			err = syscall.ENOTDIR
		}
		*notes = append(*notes, fmt.Sprintf("the working directory %s cannot be entered (%v): the command ran in %s", sh.cwd, err, sh.o.Dir))
		sh.cwd = sh.o.Dir
	}
	p, err := sh.startIn(command, out)
	if err != nil && sh.path != "/bin/sh" && (errors.Is(err, syscall.EACCES) || !isExecutable(sh.path)) {
		*notes = append(*notes, fmt.Sprintf("%s cannot be run (%v): using /bin/sh", sh.path, err))
		sh.path = "/bin/sh"
		p, err = sh.startIn(command, out)
	}
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", sh.path, err)
	}
	return p, nil
}

func (sh *shell) startIn(command string, out io.Writer) (*process, error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	trR, trW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd := exec.Command(sh.path, "-c", wrapper, "sh", command, sh.state)
	cmd.Dir = sh.cwd
	cmd.Env = []string{}
	if sh.state == "" {
		cmd.Env = sh.o.Env
	}
	cmd.Stdout, cmd.Stderr = outW, outW
	cmd.ExtraFiles = []*os.File{trW}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	outW.Close()
	trW.Close()
	if err != nil {
		outR.Close()
		trR.Close()
		return nil, err
	}
	p := &process{cmd: cmd, outR: outR, trailerR: trR, outDone: make(chan struct{}), trailerDone: make(chan struct{})}
	go func() {
		defer close(p.outDone)
		_, _ = io.Copy(out, outR)
	}()
	go func() {
		defer close(p.trailerDone)
		buf := make([]byte, 32<<10)
		for {
			n, err := trR.Read(buf)
			p.trailer.Write(buf[:n])
			if err != nil || bytes.HasSuffix(p.trailer.Bytes(), []byte(trailerEnd)) || p.trailer.Len() > 2*maxStateBytes {
				return
			}
		}
	}()
	return p, nil
}

// wait waits for the shell, killing its process group at the timeout.
func (p *process) wait(timeout time.Duration) (timedOut bool) {
	done := make(chan struct{})
	go func() {
		_ = p.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
		return false
	case <-time.After(timeout):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-done
		return true
	}
}

// drain reads the output and the trailer until their writers are gone,
// or for drainGrace after the shell exited.
func (p *process) drain() {
	timer := time.NewTimer(drainGrace)
	defer timer.Stop()
	expired := false
	for _, c := range []struct {
		f    *os.File
		done chan struct{}
	}{{p.outR, p.outDone}, {p.trailerR, p.trailerDone}} {
		if !expired {
			select {
			case <-c.done:
			case <-timer.C:
				expired = true
			}
		}
		select {
		case <-c.done:
		default:
			p.held = p.held || c.f == p.outR
			_ = c.f.SetReadDeadline(time.Now())
			<-c.done
		}
		c.f.Close()
	}
}

// exitCode is a shell's status: 128+N when killed by signal N.
func exitCode(st *os.ProcessState) int {
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return st.ExitCode()
}

type trailer struct {
	status  int
	cwd     string
	exports string
}

// parseTrailer reads the wrapper's trailer: status NUL cwd NUL exports END.
func parseTrailer(b []byte) (trailer, bool) {
	body, ok := bytes.CutSuffix(b, []byte(trailerEnd))
	if !ok {
		return trailer{}, false
	}
	parts := bytes.SplitN(body, []byte{0}, 3)
	if len(parts) != 3 || len(parts[1]) == 0 {
		return trailer{}, false
	}
	status, err := strconv.Atoi(string(parts[0]))
	if err != nil {
		return trailer{}, false
	}
	return trailer{status: status, cwd: string(parts[1]), exports: string(parts[2])}, true
}
