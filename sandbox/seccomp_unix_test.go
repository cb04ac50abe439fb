package sandbox

import (
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/authbench/authbench/policy"
	"golang.org/x/sys/unix"
)

func init() {
	// probeFuncs is built by probe_test.go's init, which runs first.
	// unixconnect: socket(AF_UNIX, SOCK_STREAM) and connect to Path.
	probeFuncs["unixconnect"] = func(o probeOp) (string, error) {
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return "socket", err
		}
		defer unix.Close(fd)
		return "connect", unix.Connect(fd, &unix.SockaddrUnix{Name: o.Path})
	}
	probeFuncs["socketpair"] = func(o probeOp) (string, error) {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err == nil {
			unix.Close(fds[0])
			unix.Close(fds[1])
		}
		return "", err
	}
	techniques = append(techniques, technique{name: "connect to a pathname unix socket outside the policy",
		prepare: func(t *testing.T, f escapeFixture, _ *escapeWorld, s *Launch) func() {
			s.RefuseUnixConnect = true // as authbench exec asks
			ln, err := net.Listen("unix", f.forbidden+"/service.sock")
			if err != nil {
				t.Fatal(err)
			}
			return func() { ln.Close() }
		},
		ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
			return []probeOp{op("unixconnect", f.forbidden+"/service.sock")}
		}})
}

// TestUnixConnectMechanism: the plan of what keeps pathname unix sockets
// in, by Landlock ABI: resolve_unix from ABI 9 (where Landlock is
// applied), else seccomp when a filter is installed; nothing when the
// caller allows it.
func TestUnixConnectMechanism(t *testing.T) {
	for _, tc := range []struct {
		refuse           bool
		abi              int
		landlock, filter bool
		want             UnixConnectMechanism
	}{
		{true, 9, true, true, UnixConnectLandlock},
		{true, 10, true, false, UnixConnectLandlock},
		{true, 8, true, true, UnixConnectSeccomp},
		{true, 7, true, true, UnixConnectSeccomp},
		{true, 1, true, true, UnixConnectSeccomp},
		{true, 9, false, true, UnixConnectSeccomp}, // no plan applied: Landlock grants nothing
		{true, 7, true, false, UnixConnectAllowed}, // no filter to refuse with
		{false, 7, true, true, UnixConnectAllowed},
		{false, 9, true, true, UnixConnectAllowed},
	} {
		if got := unixConnectMechanism(tc.refuse, tc.abi, tc.landlock, tc.filter); got != tc.want {
			t.Errorf("refuse %v, ABI %d, landlock %v, filter %v: %s, want %s", tc.refuse, tc.abi, tc.landlock, tc.filter, got, tc.want)
		}
	}
	if landlockResolveUnixABI != 9 || abiHas(landlockResolveUnixABI-1, policy.AccessResolveUnix) ||
		!abiHas(landlockResolveUnixABI, policy.AccessResolveUnix) {
		t.Errorf("resolve_unix is not first handled at ABI %d in the ABI table", landlockResolveUnixABI)
	}
}

// abiHas reports whether the ABI table's entry for version v handles a.
func abiHas(v int, a policy.Access) bool {
	abi, ok := abiFor(v)
	return ok && abi.fs&a != 0
}

// TestUnixSocketsRefusedProgram: the prologue answers socket(AF_UNIX) of
// the connectable types EACCES and leaves every other call to the
// default program's own verdict.
func TestUnixSocketsRefusedProgram(t *testing.T) {
	def, err := DefaultFilter()
	if err != nil {
		t.Fatal(err)
	}
	got, err := withUnixSocketsRefused(def)
	if err != nil {
		t.Fatal(err)
	}
	arch, _ := lookupArch(def.Arch)
	nums := arch.numbers()
	socket, socketpair, openat := uint32(nums["socket"]), uint32(nums["socketpair"]), uint32(nums["openat"])
	eacces := retErrno | uint32(unix.EACCES)
	for _, tc := range []struct {
		name     string
		audit    uint32
		nr       uint32
		args     [4]uint64
		refused  bool
		sameAsIn bool
	}{
		{"unix stream", arch.auditArch, socket, [4]uint64{unix.AF_UNIX, unix.SOCK_STREAM}, true, false},
		{"unix stream cloexec nonblock", arch.auditArch, socket, [4]uint64{unix.AF_UNIX, unix.SOCK_STREAM | unix.SOCK_CLOEXEC | unix.SOCK_NONBLOCK}, true, false},
		{"unix dgram", arch.auditArch, socket, [4]uint64{unix.AF_UNIX, unix.SOCK_DGRAM}, true, false},
		{"unix seqpacket", arch.auditArch, socket, [4]uint64{unix.AF_UNIX, unix.SOCK_SEQPACKET}, true, false},
		{"inet stream", arch.auditArch, socket, [4]uint64{unix.AF_INET, unix.SOCK_STREAM}, false, true},
		{"netlink", arch.auditArch, socket, [4]uint64{unix.AF_NETLINK, unix.SOCK_RAW}, false, true},
		{"socketpair", arch.auditArch, socketpair, [4]uint64{unix.AF_UNIX, unix.SOCK_STREAM}, false, true},
		{"openat", arch.auditArch, openat, [4]uint64{0, 0, unix.O_RDONLY}, false, true},
		{"another arch", 0x40000003, socket, [4]uint64{unix.AF_UNIX, unix.SOCK_STREAM}, false, true},
	} {
		in, out := runFilter(t, def, tc.audit, tc.nr, tc.args[:]...), runFilter(t, got, tc.audit, tc.nr, tc.args[:]...)
		if tc.refused && out != eacces {
			t.Errorf("%s: %#x, want EACCES", tc.name, out)
		}
		if tc.sameAsIn && out != in {
			t.Errorf("%s: %#x, the default program says %#x", tc.name, out, in)
		}
	}
}

// TestRefuseUnixConnect: a confined bare-host tree connecting to a
// listening pathname unix socket outside its policy is refused; with
// the refusal lifted (exec --allow-unix-connect) it connects below ABI
// 9, and Landlock's resolve_unix still refuses from ABI 9 on.
// socketpair stays allowed. Before, nothing refused the connect below
// ABI 9.
func TestRefuseUnixConnect(t *testing.T) {
	requireRoot(t, "sandbox-init sets no_new_privs and installs the filter")
	abi := requireLandlock(t, 1)
	dir := fixtureDir(t)
	sock := filepath.Join(dir, "outside", "service.sock")
	if err := os.MkdirAll(filepath.Dir(sock), 0o755); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	def, err := DefaultFilter()
	if err != nil {
		t.Fatal(err)
	}
	allowed := filepath.Join(dir, "work")
	if err := os.MkdirAll(allowed, 0o755); err != nil {
		t.Fatal(err)
	}
	pl := withSelf(t, hostPlan(t, policyDoc([]string{allowed + "/**"}, []string{allowed + "/**"}, nil), policy.DefaultBaseline()))
	ops := []probeOp{op("socketpair", ""), op("unixconnect", sock)}
	for _, refuse := range []bool{true, false} {
		spec := Launch{RefuseUnixConnect: refuse}.Confined(pl, def)
		res, c := probe(t, spec, ops, nil)
		if len(res) != len(ops) {
			t.Fatalf("probe: %d of %d results: %v\n%s", len(res), len(ops), c.err, c.stderr)
		}
		if res[0].Errno != 0 {
			t.Errorf("refuse %v: socketpair: %v", refuse, unix.Errno(res[0].Errno))
		}
		wantRefused := refuse || abi >= landlockResolveUnixABI
		if got := res[1]; (got.Errno != 0) != wantRefused {
			t.Errorf("refuse %v, ABI %d: connect to %s: %s %v, want refused %v", refuse, abi, sock, got.Out, unix.Errno(got.Errno), wantRefused)
		}
	}
}
