package env

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/authbench/authbench/tasks"
)

// hostTargets are what a hostile RUN step reaches for on the host: a
// root-only file, a path to write a marker at, a loopback TCP port, an
// abstract unix socket and a process, each planted by the test.
type hostTargets struct {
	secretPath, secret, markerPath string
	tcpPort                        int
	abstract                       string
	pid                            int
	tcpHits, unixHits              atomic.Int32
}

// plantHostTargets plants them; they go with the test.
func plantHostTargets(t *testing.T) *hostTargets {
	t.Helper()
	var nonce [8]byte
	rand.Read(nonce[:])
	h := &hostTargets{secret: "host-secret-" + hex.EncodeToString(nonce[:]), abstract: "authbench-build-escape-" + hex.EncodeToString(nonce[:])}
	dir := t.TempDir()
	h.secretPath, h.markerPath = filepath.Join(dir, "root-only"), filepath.Join(dir, "marker")
	if err := os.WriteFile(h.secretPath, []byte(h.secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tcp, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h.tcpPort = tcp.Addr().(*net.TCPAddr).Port
	unix, err := net.Listen("unix", "@"+h.abstract)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []struct {
		l    net.Listener
		hits *atomic.Int32
	}{{tcp, &h.tcpHits}, {unix, &h.unixHits}} {
		t.Cleanup(func() { l.l.Close() })
		go func() {
			for {
				c, err := l.l.Accept()
				if err != nil {
					return
				}
				l.hits.Add(1)
				c.Write([]byte("host-listener\n"))
				c.Close()
			}
		}()
	}
	sleep := exec.Command("sleep", "300")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleep.Process.Kill(); sleep.Wait() })
	h.pid = sleep.Process.Pid
	return h
}

// escapeScript is a RUN step's Python program that tries each escape and
// prints "ESCAPED <row>" for each that worked, "held <row>" otherwise;
// the step itself succeeds.
func escapeScript(h *hostTargets) string {
	return fmt.Sprintf(`import ctypes, os, signal, socket
os.makedirs("/escape", exist_ok=True)
top = os.open("/", os.O_RDONLY)
os.chroot("/escape")
for _ in range(64):
    os.chdir("..")
os.chroot(".")
try:
    print("ESCAPED chroot-read", open(%[1]q).read().strip())
except OSError as e:
    print("held chroot-read", e)
try:
    open(%[2]q, "w").write("x")
    print("ESCAPED chroot-write")
except OSError as e:
    print("held chroot-write", e)
os.fchdir(top)
os.chroot(".")
for row, fam, addr in (("loopback-tcp", socket.AF_INET, ("127.0.0.1", %[3]d)), ("abstract-unix", socket.AF_UNIX, "\0%[4]s")):
    s = socket.socket(fam)
    s.settimeout(3)
    try:
        s.connect(addr)
        print("ESCAPED", row, s.recv(64))
    except OSError as e:
        print("held", row, e)
try:
    print("ESCAPED host-proc", open("/proc/%[5]d/cmdline").read())
except OSError as e:
    print("held host-proc", e)
try:
    os.kill(%[5]d, signal.SIGKILL)
    print("ESCAPED host-kill")
except OSError as e:
    print("held host-kill", e)
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
if libc.ptrace(16, %[5]d, None, None) == 0:
    print("ESCAPED ptrace")
else:
    print("held ptrace", os.strerror(ctypes.get_errno()))
if libc.mount(b"none", b"/mnt", b"tmpfs", 0, None) == 0:
    print("ESCAPED mount")
else:
    print("held mount", os.strerror(ctypes.get_errno()))
if os.path.exists("/proc/1/root" + %[1]q):
    print("ESCAPED proc-root")
else:
    print("held proc-root")
`, h.secretPath, h.markerPath, h.tcpPort, h.abstract, h.pid)
}

// TestEscapeBuild: a task's Dockerfile RUN step reaches nothing of the
// host — the chroot escape reads no root-only host file and writes no
// host file; the host's loopback ports and abstract sockets are not
// there; host processes can be neither seen, killed nor traced; mount
// is refused (docs/security.md, "Image builds"). Each row is a subtest
// (scripts/test-escape.sh counts them).
func TestEscapeBuild(t *testing.T) {
	s, b, base := needBase(t)
	h := plantHostTargets(t)
	dir := copyTask(t, "hello-standard")
	dockerfile := "FROM authbench-base\nCOPY escape.py /escape.py\nRUN python3 /escape.py\n"
	if err := os.WriteFile(filepath.Join(dir, tasks.FileDockerfile), []byte(dockerfile), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, tasks.DirEnvironment, "escape.py"), []byte(escapeScript(h)), 0o644); err != nil {
		t.Fatal(err)
	}
	task, err := tasks.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	img, _, err := BuildTask(ctx, s, task, BuildOptions{Builder: b, Base: base, Log: &log})
	if err != nil {
		t.Fatalf("build: %v\n%s", err, log.String())
	}
	defer os.RemoveAll(filepath.Dir(img.Rootfs))
	out := log.String()
	row := func(name string, extra func() error) {
		t.Run(name, func(t *testing.T) {
			if !strings.Contains(out, "held "+name) {
				t.Errorf("the step did not report %q held:\n%s", name, out)
			}
			if strings.Contains(out, "ESCAPED "+name) {
				t.Errorf("escaped: %s", lineOf(out, "ESCAPED "+name))
			}
			if extra != nil {
				if err := extra(); err != nil {
					t.Error(err)
				}
			}
		})
	}
	row("chroot-read", func() error {
		if strings.Contains(out, h.secret) {
			return errors.New("the build log holds the root-only host file's content")
		}
		return nil
	})
	row("chroot-write", func() error {
		if _, err := os.Lstat(h.markerPath); err == nil {
			return fmt.Errorf("the step wrote %s on the host", h.markerPath)
		}
		return nil
	})
	row("loopback-tcp", func() error { return noHits("the host's loopback port", &h.tcpHits) })
	row("abstract-unix", func() error { return noHits("the host's abstract socket", &h.unixHits) })
	row("host-proc", nil)
	row("host-kill", func() error {
		if err := syscall.Kill(h.pid, 0); err != nil {
			return fmt.Errorf("the host process %d is gone: %v", h.pid, err)
		}
		return nil
	})
	row("ptrace", nil)
	row("mount", nil)
	row("proc-root", nil)
}

func noHits(what string, n *atomic.Int32) error {
	if c := n.Load(); c > 0 {
		return fmt.Errorf("%s accepted %d connections from the step", what, c)
	}
	return nil
}

// lineOf is the first line of s containing sub.
func lineOf(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}
