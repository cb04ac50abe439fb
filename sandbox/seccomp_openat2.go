package sandbox

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/capability"
)

// openat2AgentArg follows InitCommand in the agent's argv: the authbench
// binary started as `sandbox-init openat2-agent` serves openat2 for the
// tree instead of becoming a command.
const openat2AgentArg = "openat2-agent"

// Descriptors of the openat2 agent: its configuration arrives on stdin,
// the listener and the handshake on agentSockFD, sandbox-init's Landlock
// ruleset (when there is one) on agentRulesetFD.
const (
	agentSockFD    = 3
	agentRulesetFD = 4
)

// openHowSize is sizeof(struct open_how) (OPEN_HOW_SIZE_VER0).
const openHowSize = 24

// agentConfig is what sandbox-init hands the openat2 agent: the tree's
// restrictions (so that the opens it makes are the tree's) and the filter
// (so that it judges openat2 as the filter judges openat). The Landlock
// ruleset is not described here but handed over as a descriptor
// (agentRulesetFD): the agent never resolves a rule path itself.
type agentConfig struct {
	Ruleset          bool        `json:"ruleset,omitempty"`
	RulesetFlags     uint32      `json:"ruleset_flags,omitempty"`
	DropCapabilities bool        `json:"drop_capabilities,omitempty"`
	Capabilities     []string    `json:"capabilities,omitempty"`
	UID              *int        `json:"uid,omitempty"`
	GID              *int        `json:"gid,omitempty"`
	Groups           []int       `json:"groups,omitempty"`
	Arch             string      `json:"arch"`
	Program          [][4]uint32 `json:"program"`
}

// startOpenat2Agent starts the openat2 agent for spec, before this
// process restricts itself (the agent applies the same restrictions,
// see runOpenat2Agent), handing it ruleset (-1: none), the Landlock
// ruleset this process enforces on itself. It returns this end of the
// agent's socket.
func startOpenat2Agent(spec *Launch, ruleset int, rulesetFlags uint32) (*os.File, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("openat2 agent: socketpair: %w", err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "openat2-agent"), os.NewFile(uintptr(fds[1]), "openat2-agent")
	defer theirs.Close()
	cfg := agentConfig{Ruleset: ruleset >= 0, RulesetFlags: rulesetFlags,
		DropCapabilities: spec.DropCapabilities, Capabilities: spec.Capabilities,
		UID: spec.UID, GID: spec.GID, Groups: spec.Groups, Arch: spec.Seccomp.Arch, Program: spec.Seccomp.Program}
	data, err := json.Marshal(cfg)
	if err != nil {
		ours.Close()
		return nil, err
	}
	// The configuration goes in a memory file, whole before the agent
	// starts: sandbox-init does not wait for the agent (it may exec
	// before the agent has read anything).
	mfd, err := unix.MemfdCreate("openat2-agent-config", unix.MFD_CLOEXEC)
	if err != nil {
		ours.Close()
		return nil, fmt.Errorf("openat2 agent: memfd: %w", err)
	}
	conf := os.NewFile(uintptr(mfd), "openat2-agent-config")
	defer conf.Close()
	if _, err := conf.Write(data); err != nil {
		ours.Close()
		return nil, fmt.Errorf("openat2 agent: %w", err)
	}
	if _, err := conf.Seek(0, io.SeekStart); err != nil {
		ours.Close()
		return nil, err
	}
	// syscall.ForkExec, not os/exec: os/exec's first start checks the
	// kernel's pidfd support with one more child, on sandbox-init's way
	// to the command.
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		ours.Close()
		return nil, fmt.Errorf("openat2 agent: %w", err)
	}
	defer null.Close()
	files := []uintptr{conf.Fd(), null.Fd(), null.Fd(), theirs.Fd()}
	if ruleset >= 0 {
		files = append(files, uintptr(ruleset)) // agentRulesetFD
	}
	pid, err := syscall.ForkExec("/proc/self/exe", []string{"/proc/self/exe", InitCommand, openat2AgentArg},
		&syscall.ProcAttr{Dir: "/", Env: []string{}, Files: files})
	if err != nil {
		ours.Close()
		return nil, fmt.Errorf("openat2 agent: start: %w", err)
	}
	agentPid = pid
	return ours, nil
}

// agentPid is the openat2 agent's pid in sandbox-init (0: none).
var agentPid int

// handOverListener installs f with a listener and sends the listener to
// the agent, without waiting for it: the tree's first openat2 waits for
// the agent instead, and if the agent failed to start (or dies), the
// listener closes and every openat2 answers ENOSYS, the old behaviour.
func handOverListener(sock *os.File, f *Filter) error {
	defer sock.Close()
	listener, err := installFilterListener(f)
	if err != nil {
		return err
	}
	defer unix.Close(listener)
	if err := unix.Sendmsg(int(sock.Fd()), []byte("listener"), unix.UnixRights(listener), nil, 0); err != nil {
		return fmt.Errorf("openat2 agent: send the listener: %w", err)
	}
	return nil
}

// installFilterListener is installFilter with a listener for the
// filter's notifications (returned).
func installFilterListener(f *Filter) (int, error) {
	prog := make([]unix.SockFilter, len(f.Program))
	for i, in := range f.Program {
		prog[i] = unix.SockFilter{Code: uint16(in[0]), Jt: uint8(in[1]), Jf: uint8(in[2]), K: in[3]}
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	flags := f.Flags | unix.SECCOMP_FILTER_FLAG_TSYNC | unix.SECCOMP_FILTER_FLAG_TSYNC_ESRCH | unix.SECCOMP_FILTER_FLAG_NEW_LISTENER
	r, _, errno := unix.Syscall(unix.SYS_SECCOMP, seccompSetModeFilter, uintptr(flags), uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if errno != 0 {
		return -1, fmt.Errorf("seccomp(SET_MODE_FILTER, NEW_LISTENER, profile %s): %w", f.Profile, errno)
	}
	return int(r), nil
}

// runOpenat2Agent is the openat2 agent's life. It makes itself
// non-dumpable (the tree, of the same uid, can then neither trace it nor
// take its descriptors) and takes the tree's identity for every thread;
// each open it makes runs on a fresh thread that enforces sandbox-init's
// Landlock ruleset (the descriptor it inherited: the objects the rule
// paths named before the tree ran, never the paths again), the tree's
// capabilities and
// no_new_privs on itself only, while the main thread, outside Landlock,
// reads the callers' memory and /proc entries. It serves until no process
// uses the filter any more.
func runOpenat2Agent() error {
	runtime.LockOSThread()
	sock := os.NewFile(agentSockFD, "openat2-agent")
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_DUMPABLE): %w", err)
	}
	listener, err := receiveListener()
	if err != nil {
		return err
	}
	sock.Close()
	// Nothing is served before the tree's first notifying call: the
	// set-up (the configuration, the identity, the opening thread) waits
	// for it, so that a tree which never calls
	// openat2 — most commands — does not pay for it. Every open the agent
	// makes still comes after the whole set-up.
	if !awaitNotification(listener) {
		return nil // no process uses the filter any more
	}
	data, err := io.ReadAll(io.LimitReader(os.Stdin, 256<<20))
	if err != nil {
		return fmt.Errorf("read the configuration: %w", err)
	}
	var cfg agentConfig
	if err := json.Unmarshal(data, &cfg); err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	a, err := newOpenat2Agent(&cfg)
	if err != nil {
		return err
	}
	return a.serve(listener)
}

// receiveListener receives the seccomp listener that sandbox-init sends
// on agentSockFD once its filter is installed.
func receiveListener() (int, error) {
	buf, oob := make([]byte, 16), make([]byte, unix.CmsgSpace(4))
	_, oobn, _, _, err := unix.Recvmsg(agentSockFD, buf, oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("receive the listener: %w", err)
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return -1, fmt.Errorf("receive the listener: no descriptor (%v)", err)
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		return -1, fmt.Errorf("receive the listener: no descriptor (%v)", err)
	}
	return fds[0], nil
}

// awaitNotification blocks until listener has a notification to serve
// (true) or no process uses the filter any more (false).
func awaitNotification(listener int) bool {
	for {
		pfd := []unix.PollFd{{Fd: int32(listener), Events: unix.POLLIN}}
		if _, err := unix.Poll(pfd, -1); err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return true // serve reports the error
		}
		return pfd[0].Revents&unix.POLLIN != 0 || pfd[0].Revents&(unix.POLLHUP|unix.POLLERR) == 0
	}
}

// openat2Agent serves the openat2 notifications of one tree.
type openat2Agent struct {
	cfg       *agentConfig
	granted   []int
	ruleset   int
	rsFlags   uint32
	vm        *bpf.VM
	openatNr  uint32
	openat2Nr uint32
	audit     uint32
	// creds are the Uid, Gid, Groups and CapEff lines of an opening
	// thread's status: a caller with others is not judged.
	creds string
}

func newOpenat2Agent(cfg *agentConfig) (*openat2Agent, error) {
	arch, err := lookupArch(cfg.Arch)
	if err != nil {
		return nil, err
	}
	granted, err := capability.Numbers(cfg.Capabilities)
	if err != nil {
		return nil, err
	}
	raw := make([]bpf.RawInstruction, len(cfg.Program))
	for i, in := range cfg.Program {
		raw[i] = bpf.RawInstruction{Op: uint16(in[0]), Jt: uint8(in[1]), Jf: uint8(in[2]), K: in[3]}
	}
	ins, ok := bpf.Disassemble(raw)
	if !ok {
		return nil, errors.New("the filter does not disassemble")
	}
	vm, err := bpf.NewVM(ins)
	if err != nil {
		return nil, fmt.Errorf("the filter: %w", err)
	}
	a := &openat2Agent{cfg: cfg, granted: granted, ruleset: -1, vm: vm, audit: arch.auditArch,
		openatNr: uint32(arch.numbers()["openat"]), openat2Nr: uint32(arch.numbers()["openat2"])}
	if cfg.Ruleset {
		// sandbox-init's own ruleset, built before the tree ran.
		unix.CloseOnExec(agentRulesetFD)
		a.ruleset, a.rsFlags = agentRulesetFD, cfg.RulesetFlags
	}
	if cfg.UID != nil {
		if err := setIdentity(*cfg.UID, *cfg.GID, cfg.Groups); err != nil {
			return nil, err
		}
	}
	// One opening thread now: it proves the set-up and gives the
	// credentials a caller must have — read before the thread's Landlock
	// domain (which need not grant /proc) and unchanged by it.
	res := a.onOpeningThread(func() error {
		st, err := os.ReadFile("/proc/thread-self/status")
		if err == nil {
			a.creds = credLines(string(st))
		}
		return err
	}, func() (int, error) { return -1, nil })
	if res.err != nil {
		return nil, res.err
	}
	return a, nil
}

// credLines extracts the Uid, Gid, Groups and CapEff lines of a
// /proc/PID/status text. Pure.
func credLines(status string) string {
	var b strings.Builder
	for line := range strings.SplitSeq(status, "\n") {
		for _, k := range []string{"Uid:", "Gid:", "Groups:", "CapEff:"} {
			if strings.HasPrefix(line, k) {
				b.WriteString(strings.Join(strings.Fields(line), " "))
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

// umaskOf reads the Umask line of a /proc/PID/status text. Pure.
func umaskOf(status string) (int, bool) {
	for line := range strings.SplitSeq(status, "\n") {
		if v, ok := strings.CutPrefix(line, "Umask:"); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32)
			return int(n), err == nil
		}
	}
	return 0, false
}

type openResult struct {
	fd  int
	err error
}

// onOpeningThread runs fn on a new OS thread restricted like the tree
// (capabilities, no_new_privs, Landlock), which ends with fn: a thread
// restricted by Landlock is never reused. beforeLandlock, when not nil,
// runs on that thread once its capabilities and no_new_privs are set,
// before its Landlock domain.
func (a *openat2Agent) onOpeningThread(beforeLandlock func() error, fn func() (int, error)) openResult {
	done := make(chan openResult, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies restricted
		if a.cfg.DropCapabilities {
			if err := capset(grantedSets(a.granted, unix.Geteuid())); err != nil {
				done <- openResult{-1, err}
				return
			}
		}
		if err := setNoNewPrivs(); err != nil {
			done <- openResult{-1, err}
			return
		}
		if beforeLandlock != nil {
			if err := beforeLandlock(); err != nil {
				done <- openResult{-1, err}
				return
			}
		}
		if a.ruleset >= 0 {
			if err := ll.LandlockRestrictSelf(a.ruleset, a.rsFlags); err != nil {
				done <- openResult{-1, fmt.Errorf("landlock_restrict_self: %w", err)}
				return
			}
		}
		fd, err := fn()
		done <- openResult{fd, err}
	}()
	return <-done
}

// seccompNotif is struct seccomp_notif.
type seccompNotif struct {
	ID    uint64
	Pid   uint32
	Flags uint32
	Nr    int32
	Arch  uint32
	IP    uint64
	Args  [6]uint64
}

// seccompNotifResp is struct seccomp_notif_resp.
type seccompNotifResp struct {
	ID    uint64
	Val   int64
	Error int32
	Flags uint32
}

// seccompNotifAddfd is struct seccomp_notif_addfd.
type seccompNotifAddfd struct {
	ID         uint64
	Flags      uint32
	Srcfd      uint32
	Newfd      uint32
	NewfdFlags uint32
}

// ioctlNotifAddfd is SECCOMP_IOCTL_NOTIF_ADDFD; idValid
// SECCOMP_IOCTL_NOTIF_ID_VALID.
const (
	ioctlNotifAddfd   = 0x40182103
	ioctlNotifIDValid = 0x40082102
)

// agentConcurrency bounds the opens the agent makes at once: each runs
// on an OS thread of its own, so a tree flooding it with opens that block
// (FIFOs without a peer) holds at most this many threads. A notification
// that finds every slot taken is answered ENOSYS at once, and its caller
// falls back to openat, which its own Landlock domain and filter judge.
const agentConcurrency = 16

// serve answers the listener's notifications, each on a goroutine of its
// own (at most agentConcurrency at once), so that an open that blocks
// stalls only its caller. It returns when no process uses the filter
// any more.
func (a *openat2Agent) serve(listener int) error {
	slots := make(chan struct{}, agentConcurrency)
	for {
		pfd := []unix.PollFd{{Fd: int32(listener), Events: unix.POLLIN}}
		if _, err := unix.Poll(pfd, -1); err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return err
		}
		if pfd[0].Revents&unix.POLLIN == 0 && pfd[0].Revents&(unix.POLLHUP|unix.POLLERR) != 0 {
			return nil // no process uses the filter any more
		}
		var req seccompNotif
		if err := notifIoctl(listener, unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(&req)); err != nil {
			if errors.Is(err, unix.EINTR) || errors.Is(err, unix.ENOENT) {
				continue // the caller went away
			}
			return fmt.Errorf("SECCOMP_IOCTL_NOTIF_RECV: %w", err)
		}
		select {
		case slots <- struct{}{}:
			go func() {
				defer func() { <-slots }()
				a.answer(listener, &req)
			}()
		default:
			resp := seccompNotifResp{ID: req.ID, Error: -int32(unix.ENOSYS)}
			_ = notifIoctl(listener, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&resp))
		}
	}
}

func notifIoctl(fd int, req uint, arg unsafe.Pointer) error {
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg))
	if e != 0 {
		return e
	}
	return nil
}

// answer judges one openat2 call and answers it: an errno, or the
// descriptor of the open the agent made.
func (a *openat2Agent) answer(listener int, req *seccompNotif) {
	fd, flags, errno := a.openChecked(listener, req)
	if errno == 0 {
		add := seccompNotifAddfd{ID: req.ID, Flags: unix.SECCOMP_ADDFD_FLAG_SEND, Srcfd: uint32(fd)}
		if flags&unix.O_CLOEXEC != 0 {
			add.NewfdFlags = unix.O_CLOEXEC
		}
		err := notifIoctl(listener, ioctlNotifAddfd, unsafe.Pointer(&add))
		unix.Close(fd)
		if err == nil || errors.Is(err, unix.ENOENT) {
			return
		}
		errno = err.(unix.Errno)
	}
	resp := seccompNotifResp{ID: req.ID, Error: -int32(errno)}
	_ = notifIoctl(listener, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&resp))
}

// openChecked makes the open req asks for, when the filter allows it as
// an openat with the same flags and mode, and returns its descriptor and
// flags; ENOSYS where the agent cannot stand in for the caller (the
// caller then falls back to openat).
func (a *openat2Agent) openChecked(listener int, req *seccompNotif) (int, uint64, unix.Errno) {
	var how unix.OpenHow
	fd, errno := a.openFor(listener, req, &how)
	return fd, how.Flags, errno
}

// openFor is openChecked; it fills *out with the call's open_how.
func (a *openat2Agent) openFor(listener int, req *seccompNotif, out *unix.OpenHow) (int, unix.Errno) {
	if req.Arch != a.audit || uint32(req.Nr) != a.openat2Nr {
		return -1, unix.ENOSYS
	}
	pid := int(req.Pid)
	dirfd, pathPtr, howPtr, size := int32(req.Args[0]), req.Args[1], req.Args[2], req.Args[3]
	if size < openHowSize {
		return -1, unix.EINVAL
	}
	if size > uint64(os.Getpagesize()) {
		return -1, unix.E2BIG
	}
	raw := make([]byte, size)
	if err := readMemory(pid, howPtr, raw); err != nil {
		return -1, memErrno(err)
	}
	for _, b := range raw[openHowSize:] {
		if b != 0 {
			return -1, unix.E2BIG
		}
	}
	how := unix.OpenHow{Flags: binary.NativeEndian.Uint64(raw[0:]), Mode: binary.NativeEndian.Uint64(raw[8:]),
		Resolve: binary.NativeEndian.Uint64(raw[16:])}
	*out = how
	path, errno := readPath(pid, pathPtr)
	if errno != 0 {
		return -1, errno
	}
	proc, err := openProcOf(pid)
	if err != nil {
		return -1, unix.ENOSYS
	}
	defer unix.Close(proc)
	status, err := readAt(proc, "status")
	if err != nil || credLines(status) != a.creds {
		return -1, unix.ENOSYS // another identity than the tree's: not ours to stand in for
	}
	umask, ok := umaskOf(status)
	if !ok {
		return -1, unix.ENOSYS
	}
	if v := a.judge(dirfd, pathPtr, how); v != retAllow {
		if v&0xffff0000 == retErrno {
			return -1, unix.Errno(v & 0xffff)
		}
		return -1, unix.EPERM
	}
	dfd := unix.AT_FDCWD
	if !strings.HasPrefix(path, "/") || how.Resolve&(unix.RESOLVE_BENEATH|unix.RESOLVE_IN_ROOT) != 0 {
		name := "cwd"
		if dirfd != unix.AT_FDCWD {
			name = "fd/" + strconv.Itoa(int(dirfd))
		}
		dfd, err = unix.Openat(proc, name, unix.O_PATH|unix.O_CLOEXEC, 0)
		switch {
		case errors.Is(err, unix.ENOENT) && dirfd != unix.AT_FDCWD:
			return -1, unix.EBADF
		case err != nil:
			return -1, unix.ENOSYS
		}
		defer unix.Close(dfd)
	}
	// Everything read belonged to the caller only if its call is still
	// pending (its pid was not reused meanwhile).
	if err := notifIoctl(listener, ioctlNotifIDValid, unsafe.Pointer(&req.ID)); err != nil {
		return -1, unix.ENOSYS
	}
	return a.openAs(dfd, path, how, umask)
}

// openAs makes the caller's open on an opening thread (restricted like
// the tree), with the caller's umask.
func (a *openat2Agent) openAs(dfd int, path string, how unix.OpenHow, umask int) (int, unix.Errno) {
	ours := how
	// The agent's /proc/self is not the caller's: magic links (and
	// /proc entries below) are opened by the caller itself.
	ours.Resolve |= unix.RESOLVE_NO_MAGICLINKS
	// The umask is the process's (its fs_struct) unless the opening
	// thread has one of its own: concurrent creating opens each unshare.
	var ownFS func() error
	if how.Flags&(unix.O_CREAT|unix.O_TMPFILE) != 0 {
		ownFS = func() error { return unix.Unshare(unix.CLONE_FS) }
	}
	res := a.onOpeningThread(ownFS, func() (int, error) {
		unix.Umask(umask)
		return unix.Openat2(dfd, path, &ours)
	})
	if res.err != nil {
		var e unix.Errno
		if !errors.As(res.err, &e) {
			return -1, unix.ENOSYS
		}
		if e == unix.ELOOP && how.Resolve&(unix.RESOLVE_NO_MAGICLINKS|unix.RESOLVE_NO_SYMLINKS) == 0 {
			return -1, unix.ENOSYS
		}
		return -1, e
	}
	if selfRelative(res.fd) {
		unix.Close(res.fd)
		return -1, unix.ENOSYS
	}
	return res.fd, 0
}

// selfRelative reports whether fd is a file whose meaning depends on the
// process that opened it: anything on /proc, or /dev/tty.
func selfRelative(fd int) bool {
	var fs unix.Statfs_t
	if err := unix.Fstatfs(fd, &fs); err != nil || fs.Type == unix.PROC_SUPER_MAGIC {
		return true
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return true
	}
	return st.Mode&unix.S_IFMT == unix.S_IFCHR && unix.Major(st.Rdev) == 5 && unix.Minor(st.Rdev) == 0
}

// judge runs the filter on an openat with the call's directory, path
// pointer, flags and mode: the verdict the profile gives openat.
func (a *openat2Agent) judge(dirfd int32, pathPtr uint64, how unix.OpenHow) uint32 {
	return judgeOpenat(a.vm, a.audit, a.openatNr, [4]uint64{uint64(int64(dirfd)), pathPtr, how.Flags, how.Mode})
}

// judgeOpenat runs a seccomp program (in vm) on struct seccomp_data for
// openat(args) of the architecture audit. bpf.VM loads words big-endian,
// so each 32-bit word is stored big-endian and loads see native values.
func judgeOpenat(vm *bpf.VM, audit, nr uint32, args [4]uint64) uint32 {
	data := make([]byte, 64)
	binary.BigEndian.PutUint32(data[0:], nr)
	binary.BigEndian.PutUint32(data[4:], audit)
	for i, v := range args {
		off := 16 + 8*i
		binary.BigEndian.PutUint32(data[off:], uint32(v))
		binary.BigEndian.PutUint32(data[off+4:], uint32(v>>32))
	}
	v, err := vm.Run(data)
	if err != nil {
		return retKillProcess
	}
	return uint32(v)
}

// readAt reads a small file below dir.
func readAt(dir int, name string) (string, error) {
	fd, err := unix.Openat(dir, name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", err
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 64<<10))
	return string(b), err
}

// readMemory copies len(buf) bytes at addr of process pid.
func readMemory(pid int, addr uint64, buf []byte) error {
	n, err := unix.ProcessVMReadv(pid, []unix.Iovec{{Base: &buf[0], Len: uint64(len(buf))}},
		[]unix.RemoteIovec{{Base: uintptr(addr), Len: len(buf)}}, 0)
	if err != nil {
		return err
	}
	if n != len(buf) {
		return unix.EFAULT
	}
	return nil
}

// memErrno is the answer to a caller whose memory could not be read:
// EFAULT for a bad address, ENOSYS (fall back) when reading it is not
// allowed.
func memErrno(err error) unix.Errno {
	if errors.Is(err, unix.EFAULT) {
		return unix.EFAULT
	}
	return unix.ENOSYS
}

// readPath copies the NUL-terminated path at addr, page by page (a path
// may end just before an unmapped page).
func readPath(pid int, addr uint64) (string, unix.Errno) {
	page := uint64(os.Getpagesize())
	var out []byte
	for len(out) < unix.PathMax {
		n := page - (addr+uint64(len(out)))%page
		n = min(n, uint64(unix.PathMax-len(out)))
		chunk := make([]byte, n)
		if err := readMemory(pid, addr+uint64(len(out)), chunk); err != nil {
			return "", memErrno(err)
		}
		if i := strings.IndexByte(string(chunk), 0); i >= 0 {
			out = append(out, chunk[:i]...)
			if len(out) == 0 {
				return "", unix.ENOENT
			}
			return string(out), 0
		}
		out = append(out, chunk...)
	}
	return "", unix.ENAMETOOLONG
}

// agentChildOnly reports whether the only children of this process are
// the openat2 agent, read from /proc/self/task/*/children (false when
// they cannot be read).
func agentChildOnly() bool {
	if agentPid == 0 {
		return false
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return false
	}
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		if err != nil {
			return false
		}
		for _, f := range strings.Fields(string(b)) {
			if f != strconv.Itoa(agentPid) {
				return false
			}
		}
	}
	return true
}

// stopAgent ends the openat2 agent (the reaper's tree is done).
func stopAgent() {
	if agentPid != 0 {
		_ = syscall.Kill(agentPid, syscall.SIGKILL)
	}
}
