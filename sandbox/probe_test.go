package sandbox

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// probeOp is one operation a probe performs inside the sandbox.
type probeOp struct {
	Op    string   `json:"op"`
	Path  string   `json:"path,omitempty"`
	Path2 string   `json:"path2,omitempty"`
	Arg   int64    `json:"arg,omitempty"`
	Args  []string `json:"args,omitempty"`
}

// probeResult is its outcome: errno 0 when it succeeded.
type probeResult struct {
	Op    string `json:"op"`
	Path  string `json:"path,omitempty"`
	Errno int    `json:"errno"`
	Out   string `json:"out,omitempty"`
}

// runProbe performs the JSON-encoded ops and prints one result line per
// op as soon as it is done (so that a probe killed half-way still
// reports the ops before).
func runProbe(spec string) int {
	var ops []probeOp
	if err := json.Unmarshal([]byte(spec), &ops); err != nil {
		fmt.Fprintln(os.Stderr, "probe:", err)
		return 2
	}
	enc := json.NewEncoder(os.Stdout)
	for _, op := range ops {
		out, err := probeFuncs[op.Op](op)
		r := probeResult{Op: op.Op, Path: op.Path, Out: out}
		var en unix.Errno
		switch {
		case err == nil:
		case errors.As(err, &en):
			r.Errno = int(en)
		default:
			r.Errno = -1
			r.Out = err.Error()
		}
		if err := enc.Encode(r); err != nil {
			return 3
		}
	}
	return 0
}

// probeFuncs are the operations, by name.
var probeFuncs map[string]func(probeOp) (string, error)

func init() {
	probeFuncs = map[string]func(probeOp) (string, error){
		"read":  probeRead,
		"write": func(o probeOp) (string, error) { return "", openClose(o.Path, unix.O_WRONLY, 0) },
		"create": func(o probeOp) (string, error) {
			return "", openClose(o.Path, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL, 0o644)
		},
		"list": probeList,
		"names": func(o probeOp) (string, error) {
			entries, err := os.ReadDir(o.Path)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			return strings.Join(names, " "), err
		},
		"mkdir":     func(o probeOp) (string, error) { return "", unix.Mkdir(o.Path, 0o755) },
		"delete":    func(o probeOp) (string, error) { return "", unix.Unlink(o.Path) },
		"rename":    func(o probeOp) (string, error) { return "", unix.Rename(o.Path, o.Path2) },
		"link":      func(o probeOp) (string, error) { return "", unix.Link(o.Path, o.Path2) },
		"symlink":   func(o probeOp) (string, error) { return "", unix.Symlink(o.Path, o.Path2) },
		"truncate":  func(o probeOp) (string, error) { return "", unix.Truncate(o.Path, 0) },
		"open":      func(o probeOp) (string, error) { return "", openClose(o.Path, int(o.Arg), 0o644) },
		"exec":      probeExec,
		"writefd":   func(o probeOp) (string, error) { _, err := unix.Write(int(o.Arg), []byte("x")); return "", err },
		"readopath": probeReadOPath,
		"execopath": probeExecOPath,
		"mknod": func(o probeOp) (string, error) {
			return "", unix.Mknod(o.Path, unix.S_IFBLK|0o600, int(unix.Mkdev(8, 0)))
		},
		"mknodc": func(o probeOp) (string, error) {
			return "", unix.Mknod(o.Path, unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3)))
		},
		// chown to uid/gid Arg
		"chown": func(o probeOp) (string, error) { return "", unix.Chown(o.Path, int(o.Arg), int(o.Arg)) },
		// chmod to mode Arg
		"chmodmode": func(o probeOp) (string, error) { return "", unix.Chmod(o.Path, uint32(o.Arg)) },
		// setxattr of the attribute named Path2
		"setxattr": func(o probeOp) (string, error) { return "", unix.Setxattr(o.Path, o.Path2, []byte("x"), 0) },
		"mount":    func(o probeOp) (string, error) { return "", unix.Mount("none", o.Path, "tmpfs", 0, "") },
		"umount":   func(o probeOp) (string, error) { return "", unix.Unmount(o.Path, 0) },
		"chroot":   func(o probeOp) (string, error) { return "", unix.Chroot(o.Path) },
		"pivot":    func(o probeOp) (string, error) { return "", unix.PivotRoot(o.Path, o.Path2) },
		"unshare":  probeUnshareMount,
		"clonens":  probeCloneNewUser,
		"fsopen": func(o probeOp) (string, error) {
			fd, err := unix.Fsopen("tmpfs", 0)
			closeIfOK(fd, err)
			return "", err
		},
		"opentree": func(o probeOp) (string, error) {
			fd, err := unix.OpenTree(unix.AT_FDCWD, o.Path, unix.OPEN_TREE_CLONE)
			closeIfOK(fd, err)
			return "", err
		},
		"setns":   probeSetns,
		"ptrace":  probePtrace,
		"vmreadv": probeVMReadv,
		"n2h":     probeNameToHandle,
		"obh":     probeOpenByHandle,
		"iouring": probeIOUring,
		"bpf":     probeBPF,
		"perf":    probePerf,
		"kexec":   func(o probeOp) (string, error) { return "", rawErr(unix.SYS_KEXEC_LOAD, 0, 0, 0, 0xdead0000) },
		"initmod": probeInitModule,
		"keyctl": func(o probeOp) (string, error) {
			return "", rawErr(unix.SYS_KEYCTL, unix.KEYCTL_GET_KEYRING_ID, uintptr(int64(unix.KEY_SPEC_SESSION_KEYRING)&0xffffffff), 0, 0)
		},
		"uffd":      probeUserfaultfd,
		"tiocsti":   probeTIOCSTI,
		"abstract":  probeAbstract,
		"kill":      func(o probeOp) (string, error) { return "", unix.Kill(int(o.Arg), unix.SIGTERM) },
		"memfdexec": probeMemfdExec,
		"securebits": func(o probeOp) (string, error) {
			bits, err := unix.PrctlRetInt(unix.PR_GET_SECUREBITS, 0, 0, 0, 0)
			return strconv.Itoa(bits), err
		},
		"x32": func(o probeOp) (string, error) { return "", rawErr(0x40000000|unix.SYS_GETPID, 0, 0, 0, 0) },
		"stat": func(o probeOp) (string, error) {
			var st unix.Stat_t
			return "", unix.Stat(o.Path, &st)
		},
		"chmod": func(o probeOp) (string, error) { return "", unix.Chmod(o.Path, 0o666) },
		// openat2 with flags Arg
		"openat2": func(o probeOp) (string, error) {
			fd, err := unix.Openat2(unix.AT_FDCWD, o.Path, &unix.OpenHow{Flags: uint64(o.Arg) | unix.O_CLOEXEC})
			closeIfOK(fd, err)
			return "", err
		},
		"ftruncate": func(o probeOp) (string, error) {
			return readOnlyFD(o.Path, func(fd int) error { return unix.Ftruncate(fd, 0) })
		},
		"fallocate": func(o probeOp) (string, error) {
			return readOnlyFD(o.Path, func(fd int) error { return unix.Fallocate(fd, 0, 0, 1<<16) })
		},
		// FS_IOC_SETFLAGS adding the flags Arg, through a read-only descriptor
		"setflags": func(o probeOp) (string, error) {
			return readOnlyFD(o.Path, func(fd int) error {
				flags, err := unix.IoctlGetInt(fd, unix.FS_IOC_GETFLAGS)
				if err != nil {
					return err
				}
				flags |= int(o.Arg)
				return ioctlPtr(fd, uintptr(FSIocSetFlags), unsafe.Pointer(&flags))
			})
		},
		// FS_IOC_FSSETXATTR adding the extended flags Arg
		"fssetxattr": func(o probeOp) (string, error) {
			return readOnlyFD(o.Path, func(fd int) error {
				var fsx [28]byte // struct fsxattr; fsx_xflags first
				if err := ioctlPtr(fd, fsIocFSGetXattr, unsafe.Pointer(&fsx[0])); err != nil {
					return err
				}
				*(*uint32)(unsafe.Pointer(&fsx[0])) |= uint32(o.Arg)
				return ioctlPtr(fd, uintptr(FSIocFSSetXattr), unsafe.Pointer(&fsx[0]))
			})
		},
		// file_setattr(2) (Linux 6.17) setting the extended flags Arg
		"filesetattr": func(o probeOp) (string, error) {
			var fa [24]byte // struct file_attr, FILE_ATTR_SIZE_VER0; fa_xflags first
			*(*uint64)(unsafe.Pointer(&fa[0])) = uint64(o.Arg)
			p, err := unix.BytePtrFromString(o.Path)
			if err != nil {
				return "", err
			}
			cwd := unix.AT_FDCWD
			_, _, e := unix.Syscall6(sysFileSetattr, uintptr(cwd), uintptr(unsafe.Pointer(p)),
				uintptr(unsafe.Pointer(&fa[0])), uintptr(len(fa)), 0, 0)
			if e != 0 {
				return "", e
			}
			return "", nil
		},
		"utimens": func(o probeOp) (string, error) {
			return "", unix.UtimesNano(o.Path, []unix.Timespec{{Sec: 1}, {Sec: 1}})
		},
		// removexattr of the attribute named Path2
		"removexattr": func(o probeOp) (string, error) { return "", unix.Removexattr(o.Path, o.Path2) },
		"unixconnect": func(o probeOp) (string, error) {
			fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
			if err != nil {
				return "socket", err
			}
			defer unix.Close(fd)
			return "", unix.Connect(fd, &unix.SockaddrUnix{Name: o.Path})
		},
	}
}

// readOnlyFD runs f on a descriptor of path opened read-only.
func readOnlyFD(path string, f func(fd int) error) (string, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return "open", err
	}
	defer unix.Close(fd)
	return "", f(fd)
}

func ioctlPtr(fd int, req uintptr, arg unsafe.Pointer) error {
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), req, uintptr(arg))
	if e != 0 {
		return e
	}
	return nil
}

// FS_IOC_FSGETXATTR, and file_setattr's number (the same on every
// architecture since 4.x's unified table).
const (
	fsIocFSGetXattr = 0x801c581f
	sysFileSetattr  = 469
)

func closeIfOK(fd int, err error) {
	if err == nil {
		unix.Close(fd)
	}
}

func rawErr(nr, a1, a2, a3, a4 uintptr) error {
	_, _, e := unix.Syscall6(nr, a1, a2, a3, a4, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

func openClose(path string, flags int, mode uint32) error {
	fd, err := unix.Open(path, flags|unix.O_CLOEXEC, mode)
	if err != nil {
		return err
	}
	return unix.Close(fd)
}

func probeRead(o probeOp) (string, error) {
	fd, err := unix.Open(o.Path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	buf := make([]byte, 4096)
	n, err := unix.Read(fd, buf)
	return string(buf[:max(n, 0)]), err
}

func probeList(o probeOp) (string, error) {
	fd, err := unix.Open(o.Path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	buf := make([]byte, 4096)
	_, err = unix.Getdents(fd, buf)
	return "", err
}

// probeExec runs Path with Args in a child and reports the exec error,
// or the child's exit status and output.
func probeExec(o probeOp) (string, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return "", err
	}
	argv := append([]string{o.Path}, o.Args...)
	pid, err := syscall.ForkExec(o.Path, argv, &syscall.ProcAttr{Env: []string{"PATH=/usr/bin:/bin"},
		Files: []uintptr{0, w.Fd(), w.Fd()}})
	w.Close()
	if err != nil {
		r.Close()
		return "", err
	}
	out := make([]byte, 256)
	n, _ := r.Read(out)
	r.Close()
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil {
		return "", err
	}
	return fmt.Sprintf("status=%d %s", ws.ExitStatus(), strings.TrimSpace(string(out[:max(n, 0)]))), nil
}

// probeReadOPath opens Path with O_PATH (which Landlock does not check)
// and reopens it for reading through /proc/self/fd.
func probeReadOPath(o probeOp) (string, error) {
	fd, err := unix.Open(o.Path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	return probeRead(probeOp{Path: fmt.Sprintf("/proc/self/fd/%d", fd)})
}

// probeExecOPath opens Path with O_PATH and executes it through
// /proc/self/fd.
func probeExecOPath(o probeOp) (string, error) {
	fd, err := unix.Open(o.Path, unix.O_PATH, 0)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	return probeExec(probeOp{Path: fmt.Sprintf("/proc/self/fd/%d", fd)})
}

func probeUnshareMount(o probeOp) (string, error) {
	if err := unix.Unshare(unix.CLONE_NEWUSER | unix.CLONE_NEWNS); err != nil {
		return "unshare", err
	}
	return "mount", unix.Mount("none", o.Path, "tmpfs", 0, "")
}

func probeCloneNewUser(o probeOp) (string, error) {
	pid, err := syscall.ForkExec("/bin/sh", []string{"sh", "-c", "exit 0"}, &syscall.ProcAttr{
		Sys: &syscall.SysProcAttr{Cloneflags: unix.CLONE_NEWUSER | unix.CLONE_NEWNS}})
	if err != nil {
		return "", err
	}
	var ws syscall.WaitStatus
	syscall.Wait4(pid, &ws, 0, nil)
	return "", nil
}

func probeSetns(o probeOp) (string, error) {
	fd, err := unix.Open(o.Path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "open", err
	}
	defer unix.Close(fd)
	return "setns", unix.Setns(fd, 0)
}

func probePtrace(o probeOp) (string, error) {
	if err := unix.PtraceAttach(int(o.Arg)); err != nil {
		return "", err
	}
	unix.PtraceDetach(int(o.Arg))
	return "attached", nil
}

func probeVMReadv(o probeOp) (string, error) {
	buf := make([]byte, 8)
	local := []unix.Iovec{{Base: &buf[0], Len: 8}}
	remote := []unix.RemoteIovec{{Base: 0x10000, Len: 8}}
	_, err := unix.ProcessVMReadv(int(o.Arg), local, remote, 0)
	return "", err
}

func probeNameToHandle(o probeOp) (string, error) {
	_, _, err := unix.NameToHandleAt(unix.AT_FDCWD, o.Path, 0)
	return "", err
}

// probeOpenByHandle opens a file handle made outside the sandbox (type
// Arg, bytes hex-encoded in Args[0]) relative to the mount of Path.
func probeOpenByHandle(o probeOp) (string, error) {
	b, err := hex.DecodeString(o.Args[0])
	if err != nil {
		return "", err
	}
	mfd, err := unix.Open(o.Path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return "open mount", err
	}
	defer unix.Close(mfd)
	fd, err := unix.OpenByHandleAt(mfd, unix.NewFileHandle(int32(o.Arg), b), unix.O_RDONLY)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	buf := make([]byte, 64)
	n, _ := unix.Read(fd, buf)
	return string(buf[:max(n, 0)]), nil
}

func probeIOUring(o probeOp) (string, error) {
	params := make([]byte, 120) // struct io_uring_params
	r, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, 4, uintptr(unsafe.Pointer(&params[0])), 0)
	if e != 0 {
		return "", e
	}
	unix.Close(int(r))
	return "ring created", nil
}

func probeBPF(o probeOp) (string, error) {
	// BPF_MAP_CREATE of a small array map.
	attr := [5]uint32{2 /* BPF_MAP_TYPE_ARRAY */, 4, 4, 1, 0}
	r, _, e := unix.Syscall(unix.SYS_BPF, 0, uintptr(unsafe.Pointer(&attr[0])), unsafe.Sizeof(attr))
	if e != 0 {
		return "", e
	}
	unix.Close(int(r))
	return "map created", nil
}

func probePerf(o probeOp) (string, error) {
	attr := unix.PerfEventAttr{Type: unix.PERF_TYPE_SOFTWARE, Config: unix.PERF_COUNT_SW_CPU_CLOCK,
		Size: uint32(unsafe.Sizeof(unix.PerfEventAttr{}))}
	fd, err := unix.PerfEventOpen(&attr, 0, -1, -1, unix.PERF_FLAG_FD_CLOEXEC)
	closeIfOK(fd, err)
	return "", err
}

func probeInitModule(o probeOp) (string, error) {
	img := []byte("not an ELF module")
	if err := unix.InitModule(img, ""); err != nil {
		return "init_module", err
	}
	return "init_module", nil
}

func probeUserfaultfd(o probeOp) (string, error) {
	r, _, e := unix.Syscall(unix.SYS_USERFAULTFD, unix.O_CLOEXEC, 0, 0)
	if e != 0 {
		return "", e
	}
	unix.Close(int(r))
	return "", nil
}

// probeTIOCSTI pushes a character into the terminal on stdin; Arg is the
// full 64-bit request value (to try high-bit variants).
func probeTIOCSTI(o probeOp) (string, error) {
	c := byte('#')
	_, _, e := unix.Syscall(unix.SYS_IOCTL, 0, uintptr(o.Arg), uintptr(unsafe.Pointer(&c)))
	if e != 0 {
		return "", e
	}
	return "", nil
}

func probeAbstract(o probeOp) (string, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return "socket", err
	}
	defer unix.Close(fd)
	return "", unix.Connect(fd, &unix.SockaddrUnix{Name: "@" + o.Path})
}

// probeMemfdExec writes a script into a memfd (flags Arg) and replaces
// the probe with it through execveat(AT_EMPTY_PATH). If that works the
// script prints PAYLOAD-RAN; otherwise the error is reported.
func probeMemfdExec(o probeOp) (string, error) {
	fd, err := unix.MemfdCreate("payload", int(o.Arg))
	if err != nil {
		return "memfd_create", err
	}
	if _, err := unix.Write(fd, []byte("#!/bin/sh\necho PAYLOAD-RAN\n")); err != nil {
		return "write", err
	}
	argv, _ := syscall.SlicePtrFromStrings([]string{"payload"})
	envv, _ := syscall.SlicePtrFromStrings([]string{"PATH=/usr/bin:/bin"})
	empty, _ := unix.BytePtrFromString("")
	_, _, e := unix.Syscall6(unix.SYS_EXECVEAT, uintptr(fd), uintptr(unsafe.Pointer(empty)),
		uintptr(unsafe.Pointer(&argv[0])), uintptr(unsafe.Pointer(&envv[0])), unix.AT_EMPTY_PATH, 0)
	return "execveat", e
}
