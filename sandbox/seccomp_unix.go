package sandbox

import (
	"fmt"
	"slices"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Pathname unix sockets. Landlock ABI 9 makes connecting to a pathname
// unix socket served from outside the sandbox a right (resolve_unix),
// which the plan grants with write access to the socket's path. Below
// ABI 9 nothing in Landlock stops a bare-host tree from connecting to any
// socket of the host it can name (/var/run/docker.sock, a user's
// systemd or D-Bus socket). seccomp cannot see connect's address (a
// pointer), so there the tree may not make connectable unix sockets at
// all: socket(AF_UNIX, SOCK_STREAM|SOCK_DGRAM|SOCK_SEQPACKET) answers
// EACCES. socketpair(2) stays allowed (it connects nothing), and so do
// descriptors the tree inherits. docs/security.md lists what breaks.

// UnixConnectMechanism is what keeps a confined tree from connecting to
// pathname unix sockets outside its policy.
type UnixConnectMechanism string

// The mechanisms, see unixConnectMechanism.
const (
	// UnixConnectLandlock: Landlock's resolve_unix (ABI 9 and later).
	UnixConnectLandlock UnixConnectMechanism = "landlock"
	// UnixConnectSeccomp: no unix socket but socketpair (below ABI 9).
	UnixConnectSeccomp UnixConnectMechanism = "seccomp"
	// UnixConnectAllowed: nothing (allowed by the caller, or no filter).
	UnixConnectAllowed UnixConnectMechanism = "allowed"
)

// landlockResolveUnixABI is the first Landlock ABI with resolve_unix.
const landlockResolveUnixABI = 9

// unixConnectMechanism decides, for a spec asking for refusal, a
// Landlock ABI abi, whether Landlock is applied and whether a filter is
// installed, how pathname unix sockets are kept in. Pure.
func unixConnectMechanism(refuse bool, abi int, landlock, filter bool) UnixConnectMechanism {
	switch {
	case !refuse:
		return UnixConnectAllowed
	case landlock && abi >= landlockResolveUnixABI:
		return UnixConnectLandlock
	case filter:
		return UnixConnectSeccomp
	}
	return UnixConnectAllowed
}

// withUnixSocketsRefused returns f with a prologue that answers
// socket(AF_UNIX, SOCK_STREAM|SOCK_DGRAM|SOCK_SEQPACKET) EACCES, on f's
// architecture; every other call goes on to f's program unchanged (its
// jumps are relative, so prepending keeps them).
func withUnixSocketsRefused(f *Filter) (*Filter, error) {
	arch, err := lookupArch(f.Arch)
	if err != nil {
		return nil, err
	}
	nr, ok := arch.numbers()["socket"]
	if !ok {
		return nil, fmt.Errorf("seccomp: no socket syscall on %s", f.Arch)
	}
	const skip = 11 // from after each guard to the first instruction of f
	prologue := []bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 4}, // arch
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: arch.auditArch, SkipTrue: skip},
		bpf.LoadAbsolute{Off: 0, Size: 4}, // nr
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: uint32(nr), SkipTrue: skip - 2},
		bpf.LoadAbsolute{Off: 16, Size: 4}, // domain (args[0], low word)
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: unix.AF_UNIX, SkipTrue: skip - 4},
		bpf.LoadAbsolute{Off: 24, Size: 4}, // type (args[1], low word)
		bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: 0xf},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SOCK_STREAM, SkipTrue: 3},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SOCK_DGRAM, SkipTrue: 2},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SOCK_SEQPACKET, SkipTrue: 1},
		bpf.Jump{Skip: 1},
		bpf.RetConstant{Val: retErrno | uint32(unix.EACCES)},
	}
	raw, err := bpf.Assemble(prologue)
	if err != nil {
		return nil, fmt.Errorf("seccomp: unix socket prologue: %w", err)
	}
	out := *f
	out.Profile = f.Profile + "+no-unix-sockets"
	out.Program = make([][4]uint32, 0, len(raw)+len(f.Program))
	for _, in := range raw {
		out.Program = append(out.Program, [4]uint32{uint32(in.Op), uint32(in.Jt), uint32(in.Jf), in.K})
	}
	out.Program = append(out.Program, f.Program...)
	out.Skipped = slices.Clone(f.Skipped)
	return &out, nil
}
