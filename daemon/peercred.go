package daemon

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"os/user"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"go.uber.org/zap"
	"golang.org/x/sys/unix"
)

// Peer is the process on the other end of an API connection, as the
// kernel reported it when it connected (SO_PEERCRED, SO_PEERGROUPS): it
// cannot be forged by the client.
type Peer struct {
	PID int32
	UID uint32
	GID uint32
	// Groups are the supplementary groups at connect time.
	Groups []uint32
	// Refused is set when the connection is refused whatever it asks
	// (a confined peer, or one whose identity could not be verified).
	Refused *ForbiddenError
}

// Authorisation rules, named in every refusal (ErrorResponse.Rule).
const (
	RuleUnknownPeer    = "peer-credentials"       // not a unix-socket peer, or SO_PEERCRED failed
	RuleUnverifiable   = "peer-unverifiable"      // the peer's confinement could not be read
	RuleNoNewPrivs     = "confined-no-new-privs"  // the peer has no_new_privs (every sandbox-init tree)
	RuleSeccomp        = "confined-seccomp"       // the peer runs under a seccomp filter
	RulePIDNamespace   = "confined-pid-namespace" // the peer is in another PID namespace (runs, containers)
	RuleGroup          = "group-membership"       // neither root nor a member of the daemon's group
	RuleOwnIdentity    = "own-identity"           // a non-root caller runs only as itself
	RuleRootOnly       = "root-only"              // only root may run a tree as uid 0
	RuleTrustedTasks   = "trusted-task-root"      // a non-root caller's task dir lies under no trusted root
	RuleTaskDirSymlink = "task-dir-symlink"       // a non-root caller's task dir path has a symlink
	RuleTaskDirOwner   = "task-dir-owner"         // a component is not root-owned or is group/other-writable
)

type peerKey struct{}

// peerContexter returns an http.Server ConnContext that records the peer
// of each unix-socket connection and decides once, at connect time,
// whether it is confined (see confinement); refusals are logged here,
// once per connection.
func peerContexter(log *zap.Logger) func(context.Context, net.Conn) context.Context {
	selfNS, selfErr := pidNamespace("self")
	return func(ctx context.Context, c net.Conn) context.Context {
		p, pidfd := readPeer(c)
		if p.Refused == nil {
			p.Refused = confinement(p.PID, pidfd, selfNS, selfErr)
			unix.Close(pidfd)
		}
		if p.Refused != nil {
			log.Warn("connection refused", zap.Int32("pid", p.PID), zap.Uint32("uid", p.UID),
				zap.String("rule", p.Refused.Rule), zap.String("reason", p.Refused.Reason))
		}
		return context.WithValue(ctx, peerKey{}, p)
	}
}

// peerContext records the peer's credentials only (no confinement
// decision), or nothing when they cannot be read: what connLimiter
// counts connections by.
func peerContext(ctx context.Context, c net.Conn) context.Context {
	p, pidfd := readPeer(c)
	if pidfd >= 0 {
		unix.Close(pidfd)
	}
	if p.Refused != nil {
		return ctx
	}
	return context.WithValue(ctx, peerKey{}, p)
}

// readPeer reads the peer's credentials and groups, and confirms with its
// pidfd (SO_PEERPIDFD), which the caller closes. It returns a Peer with
// Refused set (and no pidfd) when something cannot be read.
func readPeer(c net.Conn) (Peer, int) {
	uc, ok := c.(syscall.Conn) // *net.UnixConn, or one wrapping it (connLimiter)
	if !ok || c.LocalAddr().Network() != "unix" {
		return Peer{Refused: &ForbiddenError{Rule: RuleUnknownPeer, Reason: "the caller is not a unix-socket peer"}}, -1
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return Peer{Refused: &ForbiddenError{Rule: RuleUnknownPeer, Reason: fmt.Sprintf("socket: %v", err)}}, -1
	}
	var p Peer
	var credErr error
	pidfd := -1
	if err := raw.Control(func(fd uintptr) {
		var cred *unix.Ucred
		if cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED); credErr != nil {
			credErr = fmt.Errorf("SO_PEERCRED: %w", credErr)
			return
		}
		p = Peer{PID: cred.Pid, UID: cred.Uid, GID: cred.Gid}
		if p.Groups, credErr = peerGroups(int(fd)); credErr != nil {
			return
		}
		if pidfd, credErr = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_PEERPIDFD); credErr != nil {
			credErr = fmt.Errorf("SO_PEERPIDFD: %w", credErr)
		}
	}); err != nil {
		credErr = err
	}
	if credErr != nil {
		if pidfd >= 0 {
			unix.Close(pidfd)
		}
		p.Refused = &ForbiddenError{Rule: RuleUnknownPeer, Reason: fmt.Sprintf("cannot read the caller's credentials: %v", credErr)}
		return p, -1
	}
	return p, pidfd
}

// peerGroups reads SO_PEERGROUPS: the peer's supplementary groups when it
// connected.
func peerGroups(fd int) ([]uint32, error) {
	buf := make([]byte, 4*64)
	for {
		n := uint32(len(buf))
		_, _, errno := syscall.Syscall6(syscall.SYS_GETSOCKOPT, uintptr(fd), unix.SOL_SOCKET, unix.SO_PEERGROUPS,
			uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&n)), 0)
		if errno == unix.ERANGE && int(n) > len(buf) {
			buf = make([]byte, n)
			continue
		}
		if errno != 0 {
			return nil, fmt.Errorf("SO_PEERGROUPS: %w", errno)
		}
		return decodeGroups(buf[:n]), nil
	}
}

// decodeGroups decodes an array of native-endian gid_t.
func decodeGroups(b []byte) []uint32 {
	out := make([]uint32, 0, len(b)/4)
	for i := 0; i+4 <= len(b); i += 4 {
		out = append(out, binary.NativeEndian.Uint32(b[i:]))
	}
	return out
}

// confinement refuses a peer that is itself confined: a sandboxed tree
// must not get an unconfined run from the daemon (confused deputy).
// Confined means no_new_privs, any seccomp mode, or a PID namespace other
// than the daemon's. /proc/PID is read by pid, then the peer's pidfd
// confirms the process is still alive, so the pid was not reused by
// another process meanwhile. Anything unreadable refuses.
func confinement(pid int32, pidfd int, selfNS uint64, selfErr error) *ForbiddenError {
	if selfErr != nil {
		return &ForbiddenError{Rule: RuleUnverifiable, Reason: fmt.Sprintf("the daemon cannot read its own PID namespace: %v", selfErr)}
	}
	st, readErr := procStatus(pid)
	var ns uint64
	if readErr == nil {
		ns, readErr = pidNamespace(strconv.Itoa(int(pid)))
	}
	if err := pidfdAlive(pidfd); err != nil {
		return &ForbiddenError{Rule: RuleUnverifiable, Reason: fmt.Sprintf("pid %d: cannot confirm it is the process that connected: %v", pid, err)}
	}
	if readErr != nil {
		return &ForbiddenError{Rule: RuleUnverifiable, Reason: fmt.Sprintf("pid %d: %v", pid, readErr)}
	}
	return classify(st, ns, selfNS)
}

// peerStatus is what confinement needs from /proc/PID/status.
type peerStatus struct {
	NoNewPrivs string
	Seccomp    string
}

// classify decides from a peer's status and PID namespace whether it is
// confined: the refusal, or nil.
func classify(st peerStatus, ns, selfNS uint64) *ForbiddenError {
	switch {
	case st.NoNewPrivs != "0":
		return &ForbiddenError{Rule: RuleNoNewPrivs, Reason: fmt.Sprintf("the caller runs with no_new_privs (NoNewPrivs: %q): a sandboxed process may not ask the daemon for runs", st.NoNewPrivs)}
	case st.Seccomp != "0":
		return &ForbiddenError{Rule: RuleSeccomp, Reason: fmt.Sprintf("the caller runs under seccomp (Seccomp: %q): a sandboxed process may not ask the daemon for runs", st.Seccomp)}
	case ns != selfNS:
		return &ForbiddenError{Rule: RulePIDNamespace, Reason: fmt.Sprintf("the caller is in PID namespace %d, not the daemon's (%d): runs and containers may not ask the daemon for runs", ns, selfNS)}
	}
	return nil
}

// procStatus reads NoNewPrivs and Seccomp of process pid; both must be
// present.
func procStatus(pid int32) (peerStatus, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return peerStatus{}, err
	}
	return parseStatus(string(data))
}

// parseStatus extracts NoNewPrivs and Seccomp from /proc/PID/status text.
func parseStatus(text string) (peerStatus, error) {
	st := peerStatus{}
	for _, line := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch k {
		case "NoNewPrivs":
			st.NoNewPrivs = strings.TrimSpace(v)
		case "Seccomp":
			st.Seccomp = strings.TrimSpace(v)
		}
	}
	if st.NoNewPrivs == "" || st.Seccomp == "" {
		return st, errors.New("status has no NoNewPrivs or Seccomp line")
	}
	return st, nil
}

// pidNamespace returns the inode of /proc/PROC/ns/pid.
func pidNamespace(proc string) (uint64, error) {
	var st unix.Stat_t
	if err := unix.Stat("/proc/"+proc+"/ns/pid", &st); err != nil {
		return 0, fmt.Errorf("PID namespace: %w", err)
	}
	return st.Ino, nil
}

// pidfdAlive reports an error unless the process of pidfd still exists
// (signal 0 checks without sending).
func pidfdAlive(pidfd int) error {
	if pidfd < 0 {
		return errors.New("no pidfd")
	}
	return unix.PidfdSendSignal(pidfd, 0, nil, 0)
}

func peerFrom(ctx context.Context) (Peer, bool) {
	p, ok := ctx.Value(peerKey{}).(Peer)
	return p, ok
}

// Authorizer decides who may use the API: root, and members of one group.
type Authorizer struct {
	// GroupName and GID of the group whose members are allowed; GroupName
	// "" allows root only.
	GroupName string
	GID       uint32
}

// NewAuthorizer looks up the group name ("" for root only).
func NewAuthorizer(group string) (*Authorizer, error) {
	if group == "" {
		return &Authorizer{}, nil
	}
	g, err := user.LookupGroup(group)
	if err != nil {
		return nil, fmt.Errorf("group %q: %w", group, err)
	}
	gid, err := strconv.ParseUint(g.Gid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("group %q: bad gid %q", group, g.Gid)
	}
	return &Authorizer{GroupName: group, GID: uint32(gid)}, nil
}

// Check returns nil when p may use the API, or the refusal.
func (a *Authorizer) Check(p Peer) *ForbiddenError {
	if p.Refused != nil {
		return p.Refused
	}
	if p.UID == 0 {
		return nil
	}
	if a.GroupName == "" {
		return &ForbiddenError{Rule: RuleGroup, Reason: fmt.Sprintf("uid %d is not root, and the daemon allows no group", p.UID)}
	}
	if p.GID == a.GID {
		return nil
	}
	for _, g := range p.Groups {
		if g == a.GID {
			return nil
		}
	}
	return &ForbiddenError{Rule: RuleGroup, Reason: fmt.Sprintf("uid %d is neither root nor a member of group %q", p.UID, a.GroupName)}
}
