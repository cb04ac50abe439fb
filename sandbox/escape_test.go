package sandbox

import (
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/capability"
	"github.com/authbench/authbench/policy"
)

// Verdicts of the escape suite.
const (
	verdictBlocked  = "blocked"
	verdictDetected = "detected"
	verdictEscaped  = "escaped"
)

// escapeWorld is what exists outside the sandbox while the suite runs: a
// process, a listener, a terminal and a mount the sandbox must not reach.
type escapeWorld struct {
	outside      *exec.Cmd // sleeps with its cwd in a forbidden directory
	outsideDir   string
	abstractName string
	ptyMaster    *os.File
	ptySlave     *os.File
	mountPoint   string // a tmpfs mounted by the test ("" when not root)
	secretFD     int    // this (outside) process holds the secret open
	handleType   int32  // file handle of a forbidden file, made outside
	handleHex    string
	handleMount  string
}

// escapeFixture is the per-technique tree: X/allowed (read-write),
// X/readonly (read), X/forbidden (nothing).
type escapeFixture struct {
	x, allowed, readonly, forbidden string
	secret                          string // X/forbidden/secret.txt
}

func newEscapeFixture(t *testing.T) escapeFixture {
	t.Helper()
	x := fixtureDir(t)
	f := escapeFixture{x: x, allowed: x + "/allowed", readonly: x + "/readonly", forbidden: x + "/forbidden"}
	f.secret = f.forbidden + "/secret.txt"
	prog, err := os.ReadFile("/usr/bin/true")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		f.allowed + "/a.txt":         []byte("allowed"),
		f.secret:                     []byte("SECRET"),
		f.forbidden + "/dir/x.txt":   []byte("SECRET"),
		f.forbidden + "/prog":        prog,
		f.readonly + "/prog":         prog,
		f.readonly + "/notes.txt":    []byte("notes"),
		f.allowed + "/mytrue":        prog,
		f.allowed + "/sub/nested.md": []byte("nested"),
	}
	for p, data := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, "prog") || strings.HasSuffix(p, "mytrue") {
			mode = 0o755
		}
		if err := os.WriteFile(p, data, mode); err != nil {
			t.Fatal(err)
		}
	}
	if data, err := os.ReadFile("/usr/bin/id"); err == nil && os.Geteuid() == 0 {
		// a setuid-root copy of id(1), for the no_new_privs technique
		p := f.allowed + "/suid-id"
		if err := os.WriteFile(p, data, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, 0o4755); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// escapePolicy is the policy every technique runs under.
func (f escapeFixture) policy() string {
	return policyDoc([]string{f.allowed + "/**", f.readonly + "/**"}, []string{f.allowed + "/**"},
		[]string{f.allowed + "/suid-id"})
}

func newEscapeWorld(t *testing.T) *escapeWorld {
	t.Helper()
	w := &escapeWorld{outsideDir: fixtureDir(t)}
	if err := os.WriteFile(w.outsideDir+"/secret.txt", []byte("SECRET"), 0o600); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(w.outsideDir+"/secret.txt", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.secretFD = fd
	t.Cleanup(func() { unix.Close(fd) })
	w.outside = exec.Command("/bin/sleep", "600")
	w.outside.Dir = w.outsideDir
	if err := w.outside.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.outside.Process.Kill(); w.outside.Wait() })

	w.abstractName = fmt.Sprintf("authbench-escape-%d", os.Getpid())
	ln, err := listenAbstract(w.abstractName)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })

	w.ptyMaster, w.ptySlave, err = openPty()
	if err != nil {
		t.Logf("no pty (%v): TIOCSTI is tried on a pipe", err)
	} else {
		t.Cleanup(func() { w.ptyMaster.Close(); w.ptySlave.Close() })
	}

	if os.Geteuid() == 0 {
		mp := fixtureDir(t)
		if err := unix.Mount("authbench-test", mp, "tmpfs", 0, "size=1m"); err == nil {
			w.mountPoint = mp
			t.Cleanup(func() { unix.Unmount(mp, unix.MNT_DETACH) })
		}
		h, _, err := unix.NameToHandleAt(unix.AT_FDCWD, w.outsideDir+"/secret.txt", 0)
		if err == nil {
			w.handleType, w.handleHex, w.handleMount = h.Type(), hex.EncodeToString(h.Bytes()), w.outsideDir
		}
	}
	return w
}

// listenAbstract listens on the abstract unix socket @name and accepts
// (and closes) connections until closed.
func listenAbstract(name string) (net.Listener, error) {
	ln, err := net.Listen("unix", "@"+name)
	if err != nil {
		return nil, err
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return ln, nil
}

// openPty allocates a pseudo-terminal pair.
func openPty() (master, slave *os.File, err error) {
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		return nil, nil, err
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		m.Close()
		return nil, nil, err
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		return nil, nil, err
	}
	return m, s, nil
}

// technique is one escape attempt.
type technique struct {
	name string
	// root marks techniques that need root to set up.
	root bool
	// granted marks techniques whose success under Docker's capability
	// set is exactly what a capability grants inside the policy (root
	// chowning an allowed file with CAP_CHOWN): they are not run with it.
	granted bool
	// ops builds the probe's operations (nil: the technique runs a
	// command itself, see cmd).
	ops func(f escapeFixture, w *escapeWorld) []probeOp
	// cmd, instead of a probe, runs this command (path, argv).
	cmd func(f escapeFixture, w *escapeWorld) (string, []string)
	// prepare adjusts the spec and may return a cleanup.
	prepare func(t *testing.T, f escapeFixture, w *escapeWorld, s *Launch) func()
	// escaped judges the outcome: true when the technique got out.
	escaped func(res []probeResult, c childResult, w *escapeWorld) bool
	// detect, when set, reruns the technique traced and looks for it in
	// the trace: a technique that ran but was seen is detected.
	detect func(t *testing.T, f escapeFixture, spec Launch) (bool, string)
}

// lastOpSucceeded is the usual judgement: the final operation worked.
func lastOpSucceeded(res []probeResult, c childResult, _ *escapeWorld) bool {
	return len(res) > 0 && res[len(res)-1].Errno == 0
}

func op(name, p string) probeOp { return probeOp{Op: name, Path: p} }

// techniques is the escape suite.
var techniques = []technique{
	{name: "symlink to a forbidden file", ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{{Op: "symlink", Path: f.secret, Path2: f.allowed + "/ln"}, op("read", f.allowed+"/ln")}
	}},
	{name: "symlink to a forbidden dir, write through it", ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{{Op: "symlink", Path: f.forbidden, Path2: f.allowed + "/dl"}, op("create", f.allowed+"/dl/planted")}
	}},
	{name: "hardlink to a forbidden file", ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{{Op: "link", Path: f.secret, Path2: f.allowed + "/hl"}, op("read", f.allowed+"/hl")}
	}},
	{name: "rename a forbidden dir into an allowed one", ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{{Op: "rename", Path: f.forbidden + "/dir", Path2: f.allowed + "/dir"}, op("read", f.allowed+"/dir/x.txt")}
	}},
	{name: "rename an allowed file over a forbidden one", ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{{Op: "rename", Path: f.allowed + "/a.txt", Path2: f.secret}}
	}},
	{name: "../ out of an allowed dir", ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{op("read", f.allowed+"/../forbidden/secret.txt")}
	}},
	{name: "/proc/self/root", ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{op("read", "/proc/self/root"+f.secret)}
	}},
	{name: "/proc/<pid>/root of an outside process", ops: func(f escapeFixture, w *escapeWorld) []probeOp {
		return []probeOp{op("read", fmt.Sprintf("/proc/%d/root%s/secret.txt", w.outside.Process.Pid, w.outsideDir))}
	}},
	{name: "/proc/<pid>/cwd of an outside process", ops: func(f escapeFixture, w *escapeWorld) []probeOp {
		return []probeOp{op("read", fmt.Sprintf("/proc/%d/cwd/secret.txt", w.outside.Process.Pid))}
	}},
	{name: "/proc/<pid>/fd/N of an outside process", ops: func(f escapeFixture, w *escapeWorld) []probeOp {
		return []probeOp{op("read", fmt.Sprintf("/proc/%d/fd/%d", os.Getpid(), w.secretFD))}
	}},
	{name: "/proc/<pid>/mem of an outside process", ops: func(f escapeFixture, w *escapeWorld) []probeOp {
		return []probeOp{op("read", fmt.Sprintf("/proc/%d/mem", w.outside.Process.Pid))}
	}},
	{name: "O_PATH open, reopen via /proc/self/fd", ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{op("readopath", f.secret)}
	}},
	{name: "O_PATH open of a program, exec via /proc/self/fd", ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{op("execopath", f.forbidden+"/prog")}
	}},
	{name: "name_to_handle_at", ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{op("n2h", f.allowed+"/a.txt")}
	}},
	{name: "open_by_handle_at with a handle made outside", root: true, ops: func(f escapeFixture, w *escapeWorld) []probeOp {
		return []probeOp{{Op: "obh", Path: w.handleMount, Arg: int64(w.handleType), Args: []string{w.handleHex}}}
	}},
	{name: "mount tmpfs", ops: func(f escapeFixture, _ *escapeWorld) []probeOp { return []probeOp{op("mount", f.allowed)} }},
	{name: "umount a mount made outside", root: true, ops: func(f escapeFixture, w *escapeWorld) []probeOp {
		return []probeOp{op("umount", w.mountPoint)}
	}},
	{name: "unshare(user+mount ns) then mount", ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{op("unshare", f.allowed)}
	}, escaped: func(res []probeResult, _ childResult, _ *escapeWorld) bool {
		return len(res) == 1 && res[0].Out == "mount" && res[0].Errno == 0
	}},
	{name: "clone(CLONE_NEWUSER|CLONE_NEWNS)", ops: func(f escapeFixture, _ *escapeWorld) []probeOp { return []probeOp{op("clonens", "")} }},
	{name: "chroot", ops: func(f escapeFixture, _ *escapeWorld) []probeOp { return []probeOp{op("chroot", f.allowed)} }},
	{name: "pivot_root", ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{{Op: "pivot", Path: f.allowed, Path2: f.allowed + "/sub"}}
	}},
	{name: "new mount API (fsopen)", ops: func(f escapeFixture, _ *escapeWorld) []probeOp { return []probeOp{op("fsopen", "")} }},
	{name: "open_tree(OPEN_TREE_CLONE)", ops: func(f escapeFixture, _ *escapeWorld) []probeOp { return []probeOp{op("opentree", "/")} }},
	{name: "setns into pid 1's mount ns", ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{op("setns", "/proc/1/ns/mnt")}
	}},
	{name: "ptrace an outside process", ops: func(f escapeFixture, w *escapeWorld) []probeOp {
		return []probeOp{{Op: "ptrace", Arg: int64(w.outside.Process.Pid)}}
	}},
	{name: "process_vm_readv of an outside process", ops: func(f escapeFixture, w *escapeWorld) []probeOp {
		return []probeOp{{Op: "vmreadv", Arg: int64(w.outside.Process.Pid)}}
	}, escaped: func(res []probeResult, _ childResult, _ *escapeWorld) bool {
		// EFAULT means the permission check passed (the address was bad).
		return len(res) == 1 && !deniedErrno(res[0].Errno)
	}},
	{name: "io_uring (opens bypass syscall tracing)", ops: func(f escapeFixture, _ *escapeWorld) []probeOp { return []probeOp{op("iouring", "")} }},
	{name: "bpf()", ops: func(f escapeFixture, _ *escapeWorld) []probeOp { return []probeOp{op("bpf", "")} }},
	{name: "perf_event_open", ops: func(f escapeFixture, _ *escapeWorld) []probeOp { return []probeOp{op("perf", "")} }},
	{name: "kexec_load", ops: func(f escapeFixture, _ *escapeWorld) []probeOp { return []probeOp{op("kexec", "")} },
		escaped: func(res []probeResult, _ childResult, _ *escapeWorld) bool {
			return len(res) == 1 && !deniedOrAbsent(res[0].Errno) // EINVAL: it reached the loader
		}},
	{name: "init_module", ops: func(f escapeFixture, _ *escapeWorld) []probeOp { return []probeOp{op("initmod", "")} },
		escaped: func(res []probeResult, _ childResult, _ *escapeWorld) bool {
			return len(res) == 1 && !deniedOrAbsent(res[0].Errno) // ENOEXEC: it parsed the image
		}},
	{name: "keyctl", ops: func(f escapeFixture, _ *escapeWorld) []probeOp { return []probeOp{op("keyctl", "")} }},
	{name: "userfaultfd", ops: func(f escapeFixture, _ *escapeWorld) []probeOp { return []probeOp{op("uffd", "")} }},
	{name: "TIOCSTI into the terminal", ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{{Op: "tiocsti", Arg: unix.TIOCSTI}}
	}, prepare: withPtyStdin},
	{name: "TIOCSTI with junk in the high bits", ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{{Op: "tiocsti", Arg: 0x5ead0000<<32 | unix.TIOCSTI}}
	}, prepare: withPtyStdin},
	{name: "abstract unix socket to an outside listener", ops: func(f escapeFixture, w *escapeWorld) []probeOp {
		return []probeOp{op("abstract", w.abstractName)}
	}},
	{name: "signal an outside process", ops: func(f escapeFixture, w *escapeWorld) []probeOp {
		return []probeOp{{Op: "kill", Arg: int64(w.outside.Process.Pid)}}
	}, escaped: func(res []probeResult, _ childResult, w *escapeWorld) bool {
		alive := unix.Kill(w.outside.Process.Pid, 0) == nil
		return len(res) == 1 && res[0].Errno == 0 || !alive
	}},
	{name: "setuid-root binary (no_new_privs)", root: true,
		cmd: func(f escapeFixture, _ *escapeWorld) (string, []string) {
			return f.allowed + "/suid-id", []string{"id", "-u"}
		},
		prepare: func(t *testing.T, f escapeFixture, _ *escapeWorld, s *Launch) func() {
			if _, err := os.Stat(f.allowed + "/suid-id"); err != nil {
				t.Skipf("no setuid copy of id: %v", err)
			}
			id := 65534
			s.UID, s.GID = &id, &id
			return nil
		},
		escaped: func(_ []probeResult, c childResult, _ *escapeWorld) bool {
			return strings.TrimSpace(c.stdout) == "0"
		}},
	{name: "memfd_create + execveat of a payload", ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{{Op: "memfdexec", Arg: 0}}
	}, escaped: payloadRan},
	{name: "memfd_create(MFD_NOEXEC_SEAL) + execveat", ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{{Op: "memfdexec", Arg: unix.MFD_NOEXEC_SEAL}}
	}, escaped: payloadRan},
	{name: "exec a copy of a program in a writable dir", ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{op("exec", f.allowed+"/mytrue")}
	}},
	{name: "exec a forbidden program", ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{op("exec", f.forbidden+"/prog")}
	}},
	{name: "ld.so /readable/prog (exec without an execute rule)", cmd: func(f escapeFixture, _ *escapeWorld) (string, []string) {
		return loaderPath(), []string{"ld.so", f.readonly + "/prog"}
	}, escaped: func(_ []probeResult, c childResult, _ *escapeWorld) bool {
		return c.err == nil && c.status == 0
	}, detect: detectLdsoExec},
	{name: "ld.so behind a symlink with another name", cmd: func(f escapeFixture, _ *escapeWorld) (string, []string) {
		return f.allowed + "/innocent", []string{"innocent", f.readonly + "/prog"}
	}, prepare: func(t *testing.T, f escapeFixture, _ *escapeWorld, _ *Launch) func() {
		if err := os.Symlink(loaderPath(), f.allowed+"/innocent"); err != nil {
			t.Fatal(err)
		}
		return nil
	}, escaped: func(_ []probeResult, c childResult, _ *escapeWorld) bool {
		return c.err == nil && c.status == 0
	}, detect: detectLdsoExec},
	{name: "LD_PRELOAD a library written in a writable dir", root: true, cmd: func(f escapeFixture, _ *escapeWorld) (string, []string) {
		return f.allowed + "/suid-id", []string{"id", "-u"}
	}, prepare: withPreloadedLibrary, escaped: func(_ []probeResult, c childResult, _ *escapeWorld) bool {
		return strings.Contains(c.stdout, preloadMarker)
	}, detect: detectMmapExec},
	{name: "write through an fd inherited from the parent", ops: nil, prepare: withInheritedFD},
	{name: "mknod a block device in a writable dir", ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{op("mknod", f.allowed+"/disk")}
	}},
	{name: "mknod a char device in a writable dir", ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{op("mknodc", f.allowed+"/null")}
	}},
	{name: "uid 0 chowns a file (CAP_CHOWN)", root: true, granted: true, ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{{Op: "chown", Path: f.allowed + "/a.txt", Arg: otherUID}}
	}},
	{name: "uid 0 sets a trusted.* xattr", root: true, ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{{Op: "setxattr", Path: f.allowed + "/a.txt", Path2: "trusted.authbench"}}
	}},
	{name: "uid 0 makes another uid's file setuid (CAP_FOWNER)", root: true,
		ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
			return []probeOp{{Op: "chmodmode", Path: f.allowed + "/other.txt", Arg: 0o4755}}
		}, prepare: withOtherUIDFile("allowed")},
	{name: "uid 0 makes its own file setuid-root", root: true, ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{{Op: "chmodmode", Path: f.allowed + "/a.txt", Arg: 0o4755}}
	}},
	{name: "uid 0 reads another uid's 0600 file (CAP_DAC_OVERRIDE)", root: true, granted: true,
		ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
			return []probeOp{op("read", f.readonly+"/other.txt")}
		}, prepare: withOtherUIDFile("readonly")},
	{name: "truncate a forbidden file", ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{op("truncate", f.secret)}
	}},
	overlayTruncTechnique("O_RDONLY|O_TRUNC of an overlay lower file", probeOp{Op: "open", Arg: unix.O_RDONLY | unix.O_TRUNC}),
	overlayTruncTechnique("O_ACCMODE 3|O_TRUNC of an overlay lower file", probeOp{Op: "open", Arg: 3 | unix.O_TRUNC}),
	overlayTruncTechnique("openat2 O_RDONLY|O_TRUNC of an overlay lower file", probeOp{Op: "openat2", Arg: unix.O_RDONLY | unix.O_TRUNC}),
	overlayTruncTechnique("truncate(2) of an overlay lower file", probeOp{Op: "truncate"}),
	overlayTruncTechnique("fallocate of an overlay lower file (read-only fd)", probeOp{Op: "fallocate"}),
	{name: "openat2 of a forbidden file", ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{{Op: "openat2beneath", Path: f.forbidden, Path2: "secret.txt"}}
	}},
	{name: "openat2 RESOLVE_BENEATH ../ out of an allowed dir", ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{{Op: "openat2beneath", Path: f.allowed, Path2: "../forbidden/secret.txt"}}
	}},
	{name: "openat2 O_RDWR of a read-only file", ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{{Op: "openat2beneath", Path: f.readonly, Path2: "notes.txt", Arg: unix.O_RDWR}}
	}},
	{name: "openat2 O_RDONLY|O_TRUNC of a read-only file", ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{{Op: "openat2beneath", Path: f.readonly, Path2: "notes.txt", Arg: unix.O_RDONLY | unix.O_TRUNC}}
	}, escaped: func(res []probeResult, _ childResult, _ *escapeWorld) bool {
		return len(res) == 1 && res[0].Errno == 0
	}},
	{name: "uid 0 openat2 O_CREAT 04755 on the host (set-ID rule)", root: true, ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{{Op: "openat2mode", Path: f.allowed + "/setuid-new", Arg: 0o4755}}
	}},
	{name: "openat2 of /proc/self/mem (the openat2 agent's)", ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{{Op: "openat2beneath", Path: "/proc/self", Path2: "mem", Arg: unix.O_RDWR}}
	}, escaped: func(res []probeResult, _ childResult, _ *escapeWorld) bool {
		return len(res) == 1 && res[0].Errno == 0
	}},
	{name: "seccomp filter with a listener of its own (shadows the openat2 agent)", ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{op("seccomplistener", "")}
	}},
	{name: "write /proc/sys/kernel/core_pattern", ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{op("write", "/proc/sys/kernel/core_pattern")}
	}},
	{name: "x32 syscall ABI (numbers | 0x40000000)", ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{op("x32", "")}
	}, escaped: func(res []probeResult, c childResult, _ *escapeWorld) bool {
		return len(res) == 1 && res[0].Errno == 0
	}},
}

// otherUID owns files of the capability techniques; no user is needed.
const otherUID = 4242

// withOtherUIDFile makes X/dir/other.txt, owned by otherUID, mode 0600.
func withOtherUIDFile(dir string) func(*testing.T, escapeFixture, *escapeWorld, *Launch) func() {
	return func(t *testing.T, f escapeFixture, _ *escapeWorld, _ *Launch) func() {
		p := f.x + "/" + dir + "/other.txt"
		if err := os.WriteFile(p, []byte("OTHER"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(p, otherUID, otherUID); err != nil {
			t.Fatal(err)
		}
		return nil
	}
}

// deniedOrAbsent: refused, or not built into this kernel (ENOSYS).
func deniedOrAbsent(e int) bool { return deniedErrno(e) || unix.Errno(e) == unix.ENOSYS }

func payloadRan(_ []probeResult, c childResult, _ *escapeWorld) bool {
	return strings.Contains(c.stdout, "PAYLOAD-RAN")
}

// loaderPath returns this machine's dynamic loader.
func loaderPath() string {
	for _, p := range []string{"/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return "/lib64/ld-linux-x86-64.so.2"
}

func withPtyStdin(t *testing.T, _ escapeFixture, w *escapeWorld, s *Launch) func() {
	if w.ptySlave == nil {
		t.Skip("no pseudo-terminal")
	}
	return nil
}

// inheritedFD is set by withInheritedFD for the probe ops.
var inheritedFD int

// withInheritedFD opens a forbidden file for writing without
// close-on-exec, as a shell's "5<>file" would, so the sandbox inherits it.
func withInheritedFD(t *testing.T, f escapeFixture, _ *escapeWorld, s *Launch) func() {
	fd, err := unix.Open(f.secret, unix.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	inheritedFD = fd
	return func() { unix.Close(fd) }
}

// escapeSpec is the sandbox every technique runs in: the default
// baseline, the default seccomp profile, descriptors closed, capabilities
// dropped.
func escapeSpec(t *testing.T, f escapeFixture, filter *Filter) Launch {
	pl := hostPlan(t, f.policy(), policy.DefaultBaseline())
	return Launch{}.Confined(withSelf(t, pl), filter)
}

// escapeRun is one technique's outcome under one configuration.
type escapeRun struct {
	escaped bool
	detail  string
}

func runTechnique(t *testing.T, tc technique, w *escapeWorld, variant func(*Launch)) (escapeRun, escapeFixture, Launch) {
	f := newEscapeFixture(t)
	filter, err := CompileProfile(DefaultProfile(), CompileOptions{Capabilities: capability.Held(nil)})
	if err != nil {
		t.Fatal(err)
	}
	spec := escapeSpec(t, f, filter)
	var stdin *os.File
	if tc.prepare != nil {
		if cleanup := tc.prepare(t, f, w, &spec); cleanup != nil {
			defer cleanup()
		}
	}
	if strings.HasPrefix(tc.name, "TIOCSTI") {
		stdin = w.ptySlave
	}
	if variant != nil {
		variant(&spec)
	}
	var res []probeResult
	var c childResult
	ops := []probeOp(nil)
	if tc.ops != nil {
		ops = tc.ops(f, w)
	} else if tc.cmd == nil {
		ops = []probeOp{{Op: "writefd", Arg: int64(inheritedFD)}}
	}
	switch {
	case tc.cmd != nil:
		spec.Path, spec.Args = tc.cmd(f, w)
		if stdin != nil {
			c = runChild(t, spec, stdin)
		} else {
			c = runChild(t, spec, nil)
		}
	case stdin != nil:
		res, c = probe(t, spec, ops, stdin)
	default:
		res, c = probe(t, spec, ops, nil)
	}
	judge := tc.escaped
	if judge == nil {
		judge = lastOpSucceeded
	}
	run := escapeRun{escaped: judge(res, c, w)}
	var parts []string
	for _, r := range res {
		s := r.Op
		if r.Errno > 0 {
			s += " " + unix.ErrnoName(unix.Errno(r.Errno))
		} else if r.Errno == 0 {
			s += " ok"
		} else {
			s += " " + r.Out
		}
		parts = append(parts, s)
	}
	if tc.ops == nil && tc.cmd != nil {
		parts = append(parts, fmt.Sprintf("status %d %s", c.status, strings.TrimSpace(c.stdout)))
	}
	if len(res) == 0 && tc.cmd == nil {
		parts = append(parts, fmt.Sprintf("probe died: status %d", c.status))
	}
	if c.err != nil {
		parts = append(parts, c.err.Error())
	}
	run.detail = strings.Join(parts, "; ")
	return run, f, spec
}

// judgeRun is a run's verdict: blocked, or escaped unless the trace
// shows the technique (detected); the detection's account is added to
// the run's detail.
func judgeRun(t *testing.T, tc technique, r *escapeRun, f escapeFixture, spec Launch) string {
	if !r.escaped {
		return verdictBlocked
	}
	if tc.detect == nil {
		return verdictEscaped
	}
	seen, how := tc.detect(t, f, spec)
	if seen {
		r.detail += "; " + how
		return verdictDetected
	}
	r.detail += "; not detected: " + how
	return verdictEscaped
}

// TestEscape runs every technique in a fresh sandbox (default baseline,
// default seccomp profile) and reports each as blocked, detected or
// escaped; none may escape. Each technique also runs once without
// seccomp and once without Landlock, to show which layer stops it, and
// once with Docker's default capability set (what a root task agent
// holds), which must not let it out either.
func TestEscape(t *testing.T) {
	requireLandlock(t, 6)
	w := newEscapeWorld(t)
	t.Cleanup(func() {
		if suiteTracer != nil {
			suiteTracer.Close()
		}
	})
	var table strings.Builder
	fmt.Fprintf(&table, "%-52s %-9s %-10s %-10s %-10s %s\n", "technique", "verdict", "w/o secc.", "w/o landl.", "w/ caps", "observed")
	counts := map[string]int{}
	withCaps := map[string]int{}
	for _, tc := range techniques {
		tc := tc
		t.Run(strings.NewReplacer(" ", "_", "/", "_").Replace(tc.name), func(t *testing.T) {
			if tc.root {
				requireRoot(t, tc.name)
			}
			full, f, spec := runTechnique(t, tc, w, nil)
			verdict := judgeRun(t, tc, &full, f, spec)
			noSeccomp, _, _ := runTechnique(t, tc, w, func(s *Launch) { s.Seccomp = nil })
			noLandlock, _, _ := runTechnique(t, tc, w, func(s *Launch) { s.Plan = nil })
			word := func(r escapeRun) string {
				if r.escaped {
					return "escapes"
				}
				return "blocked"
			}
			capsWord := "n/a"
			if !tc.granted && (!tc.root || os.Geteuid() == 0) {
				docker, df, ds := runTechnique(t, tc, w, withDockerCapabilities)
				capsWord = judgeRun(t, tc, &docker, df, ds)
				withCaps[capsWord]++
				full.detail += "; with caps: " + docker.detail
				if capsWord == verdictEscaped {
					t.Errorf("ESCAPED with Docker's capabilities: %s: %s", tc.name, docker.detail)
				}
			}
			counts[verdict]++
			fmt.Fprintf(&table, "%-52s %-9s %-10s %-10s %-10s %s\n", tc.name, verdict, word(noSeccomp), word(noLandlock), capsWord, full.detail)
			t.Logf("%s: %s (%s)", verdict, tc.name, full.detail)
			if verdict == verdictEscaped {
				t.Errorf("ESCAPED: %s: %s", tc.name, full.detail)
			}
		})
	}
	t.Logf("escape suite: %d techniques, %d blocked, %d detected, %d escaped\n"+
		"escape suite with Docker's capabilities: %d techniques, %d blocked, %d detected, %d escaped\n%s",
		len(techniques), counts[verdictBlocked], counts[verdictDetected], counts[verdictEscaped],
		withCaps[verdictBlocked]+withCaps[verdictDetected]+withCaps[verdictEscaped], withCaps[verdictBlocked],
		withCaps[verdictDetected], withCaps[verdictEscaped], table.String())
}
