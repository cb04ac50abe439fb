package daemon

import (
	"context"
	"fmt"
	"net"
	"os/user"
	"slices"
	"strconv"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Peer is the process on the other end of an API connection, as the
// kernel reports it at connect time (SO_PEERCRED, SO_PEERGROUPS): it
// cannot be forged by the client.
type Peer struct {
	PID int32
	UID uint32
	GID uint32
	// Groups are the peer's supplementary groups.
	Groups []uint32
}

// connPeer is what the daemon decided about a connection's peer, once,
// when the connection was accepted.
type connPeer struct {
	peer Peer
	// refusal is why every request on the connection is refused; nil
	// when the peer may use the API.
	refusal *ForbiddenError
	logOnce sync.Once
}

type peerKey struct{}

// readPeer reads the kernel's credentials of c's peer, with a pidfd
// pinning the peer process (the caller closes it; -1 when it could not be
// had, err then says why).
func readPeer(c *net.UnixConn) (Peer, int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return Peer{}, -1, err
	}
	var p Peer
	pidfd := -1
	var opErr error
	if err := raw.Control(func(fd uintptr) {
		cred, err := unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
		if err != nil {
			opErr = fmt.Errorf("SO_PEERCRED: %w", err)
			return
		}
		p = Peer{PID: cred.Pid, UID: cred.Uid, GID: cred.Gid}
		if p.Groups, err = peerGroups(int(fd)); err != nil {
			opErr = fmt.Errorf("SO_PEERGROUPS: %w", err)
			return
		}
		if pidfd, err = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_PEERPIDFD); err != nil {
			pidfd, opErr = -1, fmt.Errorf("SO_PEERPIDFD: %w", err)
		}
	}); err != nil {
		return Peer{}, -1, err
	}
	return p, pidfd, opErr
}

// peerGroups reads SO_PEERGROUPS, growing the buffer as the kernel asks.
func peerGroups(fd int) ([]uint32, error) {
	buf := make([]uint32, 64)
	for {
		size := uint32(len(buf) * 4)
		_, _, errno := unix.Syscall6(unix.SYS_GETSOCKOPT, uintptr(fd), unix.SOL_SOCKET, unix.SO_PEERGROUPS,
			uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&size)), 0)
		switch {
		case errno == unix.ERANGE && int(size/4) > len(buf):
			buf = make([]uint32, size/4)
			continue
		case errno != 0:
			return nil, errno
		}
		return slices.Clone(buf[:size/4]), nil
	}
}

// identify decides, once per connection, whether c's peer may use the
// API: it must not be confined (checkUnconfined) and must be root or in
// the daemon's group.
func (a *Authorizer) identify(c *net.UnixConn) *connPeer {
	p, pidfd, err := readPeer(c)
	if pidfd >= 0 {
		defer unix.Close(pidfd)
	}
	if err != nil {
		return &connPeer{peer: p, refusal: forbidden(RulePeerUnverified, "cannot read the caller's credentials: %v", err)}
	}
	if ferr := a.checkUnconfined(p, pidfd); ferr != nil {
		return &connPeer{peer: p, refusal: ferr}
	}
	if ferr := a.Check(p); ferr != nil {
		return &connPeer{peer: p, refusal: ferr}
	}
	return &connPeer{peer: p}
}

// peerContext records what identify decided about c's peer.
func (a *Authorizer) peerContext(ctx context.Context, c net.Conn) context.Context {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return ctx
	}
	return context.WithValue(ctx, peerKey{}, a.identify(uc))
}

func connPeerFrom(ctx context.Context) *connPeer {
	cp, _ := ctx.Value(peerKey{}).(*connPeer)
	return cp
}

// peerFrom returns the caller of an authorised request.
func peerFrom(ctx context.Context) (Peer, bool) {
	cp := connPeerFrom(ctx)
	if cp == nil {
		return Peer{}, false
	}
	return cp.peer, true
}

// Authorizer decides who may use the API: unconfined processes of the
// daemon's PID namespace that are root or members of one group.
type Authorizer struct {
	// GroupName and GID of the group whose members are allowed; GroupName
	// "" allows root only.
	GroupName string
	GID       uint32
	// pidNS is the daemon's PID namespace (the inode of /proc/self/ns/pid).
	pidNS uint64
}

// NewAuthorizer looks up the group name ("" for root only).
func NewAuthorizer(group string) (*Authorizer, error) {
	ns, err := pidNamespace("self")
	if err != nil {
		return nil, fmt.Errorf("the daemon's own pid namespace: %w", err)
	}
	if group == "" {
		return &Authorizer{pidNS: ns}, nil
	}
	g, err := user.LookupGroup(group)
	if err != nil {
		return nil, fmt.Errorf("group %q: %w", group, err)
	}
	gid, err := strconv.ParseUint(g.Gid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("group %q: bad gid %q", group, g.Gid)
	}
	return &Authorizer{GroupName: group, GID: uint32(gid), pidNS: ns}, nil
}

// Check returns nil when p may use the API by its identity (root, or a
// member of the group by primary or supplementary group), or the reason
// it may not.
func (a *Authorizer) Check(p Peer) *ForbiddenError {
	if p.UID == 0 {
		return nil
	}
	if a.GroupName == "" {
		return forbidden(RuleNotMember, "uid %d is not root, and the daemon allows no group", p.UID)
	}
	if p.GID == a.GID || slices.Contains(p.Groups, a.GID) {
		return nil
	}
	return forbidden(RuleNotMember, "uid %d is neither root nor a member of group %q", p.UID, a.GroupName)
}
