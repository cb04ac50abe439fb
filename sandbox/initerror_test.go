package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

func TestInitErrorRoundTrip(t *testing.T) {
	for _, e := range []InitError{
		{Stage: StageExec, Errno: syscall.EACCES, Path: "/bin/x", Msg: "permission denied", Hint: "no execute rule"},
		{Stage: StageLookup, Errno: syscall.ENOENT, Path: "prog", Msg: "not found in PATH"},
		{Stage: StageSpec, Msg: "uid and gid must be given together"},
		{Stage: StageChdir, Errno: syscall.EACCES, Path: "/root/secret", Msg: `quote " and \ newline
here`},
	} {
		got := decodeInitError(encodeInitError(&e))
		if !reflect.DeepEqual(*got, e) {
			t.Errorf("round trip of %+v gave %+v", e, *got)
		}
	}
}

func TestInitErrorMalformed(t *testing.T) {
	for _, raw := range []string{
		"sandbox-init: exec /bin/x: permission denied",
		`{"stage":"exec","msg":"x"}{"stage":"exec","msg":"y"}`,
		`{"stage":"exec","msg":"x","extra":1}`,
		`{"stage":"exec"`,
		`{"msg":"no stage"}`,
		"\x00\xff",
	} {
		got := decodeInitError([]byte(raw))
		if got.Stage != StageSpec || got.Errno != 0 || !strings.Contains(got.Msg, "malformed") {
			t.Errorf("%q decoded as %+v, want a StageSpec error", raw, *got)
		}
		if got.ShellStatus() != ExitNotConfined {
			t.Errorf("%q: ShellStatus %d, want %d", raw, got.ShellStatus(), ExitNotConfined)
		}
	}
}

func TestInitErrorShellStatus(t *testing.T) {
	for _, c := range []struct {
		stage InitStage
		errno syscall.Errno
		want  int
	}{
		{StageExec, syscall.ENOENT, 127},
		{StageLookup, syscall.ENOENT, 127},
		{StageExec, syscall.EACCES, 126},
		{StageLookup, syscall.EACCES, 126},
		{StageExec, syscall.ENOEXEC, 126},
		{StageExec, syscall.ENOTDIR, 126},
		{StageExec, 0, 126},
		{StageChdir, syscall.ENOENT, 125},
		{StageChdir, syscall.EACCES, 125},
		{StageSpec, 0, 125},
		{StageMount, syscall.EPERM, 125},
		{StageLandlock, syscall.EINVAL, 125},
		{StageCapabilities, syscall.EPERM, 125},
		{StageIdentity, syscall.EPERM, 125},
		{StageNoNewPrivs, syscall.EINVAL, 125},
		{StageSeccomp, syscall.EINVAL, 125},
	} {
		e := &InitError{Stage: c.stage, Errno: c.errno, Msg: "x"}
		if got := e.ShellStatus(); got != c.want {
			t.Errorf("%s/%v: ShellStatus %d, want %d", c.stage, c.errno, got, c.want)
		}
	}
}

func TestInitErrorUnwrap(t *testing.T) {
	var err error = &InitError{Stage: StageExec, Errno: unix.ENOENT, Msg: "no such file or directory"}
	if !errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EACCES) {
		t.Errorf("errors.Is on %v: wrong errno", err)
	}
	if (&InitError{Stage: StageSpec, Msg: "x"}).Unwrap() != nil {
		t.Error("Unwrap without errno is not nil")
	}
	wrapped := initError(StageChdir, "/d", fmt.Errorf("chdir: %w", &os.PathError{Op: "chdir", Path: "/d", Err: unix.EACCES}))
	if wrapped.Errno != unix.EACCES || wrapped.Stage != StageChdir || wrapped.Path != "/d" {
		t.Errorf("initError kept %+v, want errno EACCES at chdir /d", *wrapped)
	}
}

// TestExecInitError: the single-process Exec fails with an *InitError
// that says where.
func TestExecInitError(t *testing.T) {
	dir := fixtureDir(t)
	for _, c := range []struct {
		spec  Launch
		stage InitStage
		errno syscall.Errno
	}{
		{Launch{Path: "nosuchprog", Args: []string{"nosuchprog"}, Env: []string{"PATH=" + dir}}, StageLookup, syscall.ENOENT},
		{Launch{Path: "/bin/true", Args: []string{"true"}, Dir: dir + "/missing"}, StageChdir, syscall.ENOENT},
		{Launch{Path: dir, Args: []string{"x"}}, StageExec, syscall.EACCES},
	} {
		data, err := json.Marshal(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(testBinary(t))
		cmd.Env = []string{execEnv + "=" + string(data)}
		out, _ := cmd.Output()
		var got InitError
		if err := json.Unmarshal(out, &got); err != nil || got.Stage != c.stage || got.Errno != c.errno {
			t.Errorf("Exec(%+v): %s (%v), want stage %s errno %v", c.spec, out, err, c.stage, c.errno)
		}
	}
}

// TestReleaseProcessInitError: ReleaseProcess (the runc form) decodes
// the child's report too, and returns nil once the command runs.
func TestReleaseProcessInitError(t *testing.T) {
	dir := fixtureDir(t)
	for _, c := range []struct {
		spec  Launch
		stage InitStage
	}{
		{Launch{Path: dir + "/missing", Args: []string{"missing"}}, StageExec},
		{Launch{Path: "/bin/sleep", Args: []string{"sleep", "0.2"}}, ""},
	} {
		gate, err := NewGate(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(testBinary(t), InitCommand)
		cmd.ExtraFiles = gate.ChildFiles()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		gate.Started()
		err = gate.ReleaseProcess(cmd.Process.Pid)
		_ = cmd.Wait()
		var ie *InitError
		switch {
		case c.stage == "" && err != nil:
			t.Errorf("%s: %v", c.spec.Path, err)
		case c.stage != "" && (!errors.As(err, &ie) || ie.Stage != c.stage || ie.Errno != syscall.ENOENT || ie.ShellStatus() != ExitNotFound):
			t.Errorf("%s: err %v, want stage %s ENOENT", c.spec.Path, err, c.stage)
		}
	}
}
