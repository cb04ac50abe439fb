package cli

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPty opens a pseudo-terminal: the person's side and the terminal.
func openPty(t *testing.T) (person, tty *os.File) {
	t.Helper()
	m, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	if err := unix.IoctlSetPointerInt(m, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(m, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	person = os.NewFile(uintptr(m), "ptmx")
	t.Cleanup(func() { person.Close(); s.Close() })
	return person, s
}

// TestExecRequestsAsk: `exec --requests ask` under a pty as the
// controlling terminal (stdin is /dev/null: the prompt is on /dev/tty).
// The command is refused a file, asks for it with request-permission
// and the person answers y: the granted command reads it; answered n,
// nothing runs (exit 3); the command's own process stays denied.
func TestExecRequestsAsk(t *testing.T) {
	requireLandlockCLI(t)
	dir, err := os.MkdirTemp("/var/tmp", "authbench-exec-ask-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	in := writeFile(t, dir, "in.txt", "hello")
	pol := writeFile(t, dir, "p.json", `{"read":[],"write":[],"execute":["/usr/bin/cat","/usr/bin/dash"]}`)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		answer, want string
	}{
		{"y\n", "helloasked 0\ndirect 1\n"},
		{"n\n", "asked 3\ndirect 1\n"},
	} {
		person, tty := openPty(t)
		script := "request-permission read " + in + " 'the task reads it' -- cat " + in + "; echo \"asked $?\"; cat " + in + " 2>/dev/null; echo \"direct $?\""
		cmd := exec.Command(self, "exec", "--policy", pol, "--allow-unix-connect", "--requests", "ask", "--", "/bin/sh", "-c", script)
		cmd.Env = append(os.Environ(), asCLIEnv+"=1")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		cmd.ExtraFiles = []*os.File{tty}
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 3}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		tty.Close()
		prompt := make(chan string, 1)
		go func() {
			r := bufio.NewReader(person)
			var b strings.Builder
			for {
				ch, err := r.ReadByte()
				if err != nil {
					prompt <- b.String()
					return
				}
				b.WriteByte(ch)
				if strings.HasSuffix(b.String(), "refuses) ") {
					prompt <- b.String()
					return
				}
			}
		}()
		select {
		case p := <-prompt:
			if !strings.Contains(p, "read "+in) || !strings.Contains(p, "reason: the task reads it") {
				t.Errorf("prompt %q", p)
			}
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("no prompt; stderr %q", errb.String())
		}
		person.WriteString(c.answer)
		err := cmd.Wait()
		if out.String() != c.want {
			t.Errorf("answered %q: stdout %q, want %q (%v; stderr %q)", c.answer, out.String(), c.want, err, errb.String())
		}
		if !strings.Contains(errb.String(), "authbench: request ") {
			t.Errorf("the requests are not listed: %q", errb.String())
		}
	}
}
