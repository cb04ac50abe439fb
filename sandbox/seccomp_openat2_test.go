package sandbox

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/authbench/authbench/policy"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

func init() {
	// probeFuncs is built by probe_test.go's init, which runs first.
	// openat2beneath: openat2(dir Path, name Path2, RESOLVE_BENEATH,
	// flags Arg) and the file's first bytes; the descriptor's
	// close-on-exec flag is reported as "cloexec" when set.
	probeFuncs["openat2beneath"] = func(o probeOp) (string, error) {
		dir, err := unix.Open(o.Path, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return "", err
		}
		defer unix.Close(dir)
		how := unix.OpenHow{Flags: uint64(o.Arg), Resolve: unix.RESOLVE_BENEATH}
		if o.Arg&unix.O_CREAT != 0 {
			how.Mode = 0o644
		}
		fd, err := unix.Openat2(dir, o.Path2, &how)
		if err != nil {
			return "", err
		}
		defer unix.Close(fd)
		fl, _ := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
		buf := make([]byte, 64)
		n, _ := unix.Read(fd, buf)
		out := string(buf[:max(n, 0)])
		if fl&unix.FD_CLOEXEC != 0 {
			out += "|cloexec"
		}
		return out, nil
	}
	// openat2thread: openat2beneath on an OS thread of its own, not the
	// thread group's leader (the seccomp notification then names the
	// thread, whose pid no listing of /proc shows).
	probeFuncs["openat2thread"] = func(o probeOp) (string, error) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if unix.Gettid() != unix.Getpid() {
			return probeFuncs["openat2beneath"](o)
		}
		// On the leader, which this goroutine now holds: another
		// goroutine runs on another thread.
		type res struct {
			out string
			err error
		}
		done := make(chan res, 1)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			out, err := probeFuncs["openat2beneath"](o)
			done <- res{out, err}
		}()
		r := <-done
		return r.out, r.err
	}
	// openat2mode: openat2(AT_FDCWD, Path, O_WRONLY|O_CREAT|O_EXCL, mode Arg).
	probeFuncs["openat2mode"] = func(o probeOp) (string, error) {
		fd, err := unix.Openat2(unix.AT_FDCWD, o.Path, &unix.OpenHow{Flags: unix.O_WRONLY | unix.O_CREAT | unix.O_EXCL | unix.O_CLOEXEC, Mode: uint64(o.Arg)})
		closeIfOK(fd, err)
		return "", err
	}
	// seccomplistener: install a filter that allows everything, with a
	// listener of its own (which would shadow the openat2 agent's).
	probeFuncs["seccomplistener"] = func(o probeOp) (string, error) {
		prog := []unix.SockFilter{{Code: opRetK, K: retAllow}}
		fprog := unix.SockFprog{Len: 1, Filter: &prog[0]}
		r, _, e := unix.Syscall(unix.SYS_SECCOMP, seccompSetModeFilter, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER, uintptr(unsafe.Pointer(&fprog)))
		runtime.KeepAlive(prog)
		if e != 0 {
			return "", e
		}
		unix.Close(int(r))
		return "", nil
	}
	// openat2self: the Pid line of /proc/self/status read through openat2,
	// and this process's pid.
	probeFuncs["openat2self"] = func(o probeOp) (string, error) {
		fd, err := unix.Openat2(unix.AT_FDCWD, "/proc/self/status", &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_CLOEXEC})
		if err != nil {
			return "", err
		}
		f := os.NewFile(uintptr(fd), "status")
		defer f.Close()
		b := make([]byte, 4096)
		n, _ := f.Read(b)
		for line := range strings.SplitSeq(string(b[:n]), "\n") {
			if v, ok := strings.CutPrefix(line, "Pid:"); ok {
				return strings.TrimSpace(v) + " " + strconv.Itoa(os.Getpid()), nil
			}
		}
		return "", unix.ENODATA
	}
}

// TestOpenat2Agent: under the default and the container profile openat2
// works (RESOLVE_BENEATH, a relative directory, close-on-exec), opens
// what Landlock allows and nothing else, refuses read-only truncation
// and, under the default profile, set-ID creation; a /proc path, whose
// meaning depends on who opens it, answers ENOSYS (callers fall back to
// openat). Before the agent, every openat2
// answered ENOSYS.
func TestOpenat2Agent(t *testing.T) {
	requireRoot(t, "sandbox-init sets no_new_privs and installs the filter")
	requireLandlock(t, 3)
	dir := fixtureDir(t)
	ro, rw := filepath.Join(dir, "ro"), filepath.Join(dir, "rw")
	secret := filepath.Join(dir, "secret")
	for _, d := range []string{ro, rw, secret} {
		if err := os.MkdirAll(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{ro + "/lock", secret + "/key"} {
		if err := os.WriteFile(f, []byte("content of "+filepath.Base(f)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	def, err := DefaultFilter()
	if err != nil {
		t.Fatal(err)
	}
	ctr, err := ContainerFilter()
	if err != nil {
		t.Fatal(err)
	}
	// The probe runs as nobody: a copy of the test binary it may run.
	self, err := os.ReadFile(testBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "probe")
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	pl := hostPlan(t, policyDoc([]string{ro + "/**", rw + "/**", "/proc/**"}, []string{rw + "/**"}, []string{bin}), policy.DefaultBaseline())
	uid, gid := 65534, 65534
	if err := os.Chown(rw, uid, gid); err != nil {
		t.Fatal(err)
	}
	ops := []probeOp{
		{Op: "openat2beneath", Path: ro, Path2: "lock", Arg: unix.O_RDONLY | unix.O_CLOEXEC},
		{Op: "openat2beneath", Path: ro, Path2: "lock", Arg: unix.O_RDONLY},
		{Op: "openat2beneath", Path: ro, Path2: "../secret/key", Arg: unix.O_RDONLY},
		{Op: "openat2beneath", Path: secret, Path2: "key", Arg: unix.O_RDONLY},
		{Op: "openat2beneath", Path: ro, Path2: "lock", Arg: unix.O_RDONLY | unix.O_TRUNC},
		{Op: "openat2beneath", Path: ro, Path2: "lock", Arg: 3 | unix.O_TRUNC},
		{Op: "openat2beneath", Path: ro, Path2: "lock", Arg: unix.O_WRONLY},
		{Op: "openat2beneath", Path: rw, Path2: "new", Arg: unix.O_RDWR | unix.O_CREAT},
		{Op: "openat2mode", Path: rw + "/setuid", Arg: 0o4755},
		{Op: "openat2mode", Path: rw + "/setgid", Arg: 0o2755},
		{Op: "openat2thread", Path: ro, Path2: "lock", Arg: unix.O_RDONLY},
		{Op: "openat2self"},
	}
	// A root launcher starts the tree in a PID namespace of its own with
	// the host's /proc (authbench exec): the agent translates its callers'
	// pids (openat2thread: a thread's, in no listing of /proc) with a
	// pidfd. Every call is answered.
	for _, tc := range []struct {
		name   string
		filter *Filter
		setID  unix.Errno
		opts   LaunchOptions
	}{{"default", def, unix.EPERM, LaunchOptions{}}, {"container", ctr, 0, LaunchOptions{}},
		{"default, own PID namespace", def, unix.EPERM, LaunchOptions{OwnPIDNamespace: true}}} {
		t.Run(tc.name, func(t *testing.T) {
			for _, f := range []string{rw + "/new", rw + "/setuid", rw + "/setgid"} {
				_ = os.Remove(f)
			}
			spec := Launch{UID: &uid, GID: &gid}.Confined(pl, tc.filter)
			res, c := probeAt(t, spec, tc.opts, bin, ops, nil)
			if len(res) != len(ops) {
				t.Fatalf("probe: %d of %d results: %v\n%s", len(res), len(ops), c.err, c.stderr)
			}
			want := []struct {
				errno unix.Errno
				out   string
			}{
				{0, "content of lock|cloexec"},
				{0, "content of lock"},
				{unix.EXDEV, ""},  // RESOLVE_BENEATH holds
				{unix.EACCES, ""}, // Landlock holds
				{unix.EACCES, ""}, // read-only truncation
				{unix.EACCES, ""},
				{unix.EACCES, ""}, // Landlock: no write
				{0, ""},
				{tc.setID, ""},
				{tc.setID, ""},
				{0, "content of lock"}, // from a thread other than the leader
			}
			for i, w := range want {
				if unix.Errno(res[i].Errno) != w.errno || res[i].Out != w.out {
					t.Errorf("%+v: errno %v out %q, want %v %q", ops[i], unix.Errno(res[i].Errno), res[i].Out, w.errno, w.out)
				}
			}
			if b, err := os.ReadFile(ro + "/lock"); err != nil || string(b) != "content of lock" {
				t.Errorf("lock after the probe: %q %v", b, err)
			}
			if st, err := os.Stat(rw + "/new"); err == nil {
				if sys := st.Sys().(*syscall.Stat_t); int(sys.Uid) != uid {
					t.Errorf("created by uid %d, want %d (the caller's)", sys.Uid, uid)
				}
			} else {
				t.Fatal(err)
			}
			if _, err := os.Stat(rw + "/setuid"); (err == nil) != (tc.setID == 0) {
				t.Errorf("setuid file exists: %v, want %v", err == nil, tc.setID == 0)
			}
			// The agent's /proc/self is not the caller's: ENOSYS, and
			// the caller (its libc) falls back to openat.
			if self := res[len(res)-1]; unix.Errno(self.Errno) != unix.ENOSYS {
				t.Errorf("/proc/self/status through openat2: %+v, want ENOSYS", self)
			}
		})
	}
}

// TestJudgeOpenat: the agent judges openat2 by running the filter on an
// openat with the same flags and mode.
func TestJudgeOpenat(t *testing.T) {
	const errnoEACCES = retErrno | 13
	atFDCWD := int64(unix.AT_FDCWD)
	for _, tc := range []struct {
		profile *Profile
		flags   uint64
		mode    uint64
		want    uint32
	}{
		{DefaultProfile(), unix.O_RDONLY, 0, retAllow},
		{DefaultProfile(), unix.O_RDONLY | unix.O_TRUNC, 0, errnoEACCES},
		{DefaultProfile(), 3 | unix.O_TRUNC, 0, errnoEACCES},
		{DefaultProfile(), unix.O_WRONLY | unix.O_TRUNC, 0, retAllow},
		{DefaultProfile(), unix.O_WRONLY | unix.O_CREAT, 0o4755, errnoEPERM},
		{DefaultProfile(), unix.O_WRONLY | unix.O_CREAT, 0o755, retAllow},
		{ContainerProfile(), unix.O_WRONLY | unix.O_CREAT, 0o4755, retAllow},
		{ContainerProfile(), unix.O_RDONLY | unix.O_TRUNC, 0, errnoEACCES},
		{ContainerProfile(), 1 << 40, 0, retAllow}, // the kernel refuses it (EINVAL)
	} {
		f, err := CompileProfile(tc.profile, CompileOptions{})
		if err != nil {
			t.Fatal(err)
		}
		raw := make([]bpf.RawInstruction, len(f.Program))
		for i, in := range f.Program {
			raw[i] = bpf.RawInstruction{Op: uint16(in[0]), Jt: uint8(in[1]), Jf: uint8(in[2]), K: in[3]}
		}
		ins, _ := bpf.Disassemble(raw)
		vm, err := bpf.NewVM(ins)
		if err != nil {
			t.Fatal(err)
		}
		arch, _ := lookupArch("")
		got := judgeOpenat(vm, arch.auditArch, uint32(arch.numbers()["openat"]), [4]uint64{uint64(atFDCWD), 0x1000, tc.flags, tc.mode})
		if got != tc.want {
			t.Errorf("%s: flags %#o mode %#o: %#x, want %#x", tc.profile.Source, tc.flags, tc.mode, got, tc.want)
		}
	}
}

// TestCredLines: the identity a caller must share with the agent.
func TestCredLines(t *testing.T) {
	st := "Name:\tx\nUmask:\t0022\nUid:\t1000\t1000\t1000\t1000\nGid:\t100\t100\t100\t100\nGroups:\t4 27 \nCapEff:\t0000000000000000\nCapPrm:\t1\n"
	if got, want := credLines(st), "Uid: 1000 1000 1000 1000\nGid: 100 100 100 100\nGroups: 4 27\nCapEff: 0000000000000000\n"; got != want {
		t.Errorf("credLines = %q, want %q", got, want)
	}
	if m, ok := umaskOf(st); !ok || m != 0o22 {
		t.Errorf("umaskOf = %o %v", m, ok)
	}
	if _, ok := umaskOf("Name: x\n"); ok {
		t.Error("umaskOf without Umask: ok")
	}
}

// TestFdinfoPid: the pid a pidfd's fdinfo gives in its procfs's PID
// namespace; none when the task is not there (0) or has exited (-1).
func TestFdinfoPid(t *testing.T) {
	for _, tc := range []struct {
		info string
		want int
		ok   bool
	}{
		{"pos:\t0\nflags:\t02000002\nmnt_id:\t15\nino:\t1062\nPid:\t11991\nNSpid:\t11991\t1\n", 11991, true},
		{"Pid:\t0\nNSpid:\t0\n", 0, false},
		{"Pid:\t-1\nNSpid:\t-1\n", 0, false},
		{"pos:\t0\n", 0, false},
		{"Pid:\tx\n", 0, false},
	} {
		got, ok := fdinfoPid(tc.info)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("fdinfoPid(%q) = %d %v, want %d %v", tc.info, got, ok, tc.want, tc.ok)
		}
	}
}

// BenchmarkOpenProcOf times the openat2 agent's lookup of a caller's
// /proc directory from its thread id (a pidfd and its fdinfo), per
// served call.
func BenchmarkOpenProcOf(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := unix.Gettid()
	for b.Loop() {
		fd, err := openProcOf(tid)
		if err != nil {
			b.Fatal(err)
		}
		unix.Close(fd)
	}
}
