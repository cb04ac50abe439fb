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

// connPeer is what the daemon decided about a connection's peer, once
// per connection, at its first request (not in the accept loop, so that
// reading one peer's /proc entry never holds up the others).
type connPeer struct {
	auth *Authorizer
	conn *net.UnixConn // until decided
	once sync.Once
	peer Peer
	// refusal is why every request on the connection is refused; nil
	// when the peer may use the API.
	refusal *ForbiddenError
	logOnce sync.Once
}

// decide identifies the peer the first time it is called.
func (cp *connPeer) decide() {
	cp.once.Do(func() {
		cp.peer, cp.refusal = cp.auth.identify(cp.conn)
		cp.conn = nil
	})
}

type peerKey struct{}

// readCred reads the kernel's credentials of c's peer (SO_PEERCRED).
func readCred(c *net.UnixConn) (Peer, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return Peer{}, err
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return Peer{}, err
	}
	if credErr != nil {
		return Peer{}, fmt.Errorf("SO_PEERCRED: %w", credErr)
	}
	return Peer{PID: cred.Pid, UID: cred.Uid, GID: cred.Gid}, nil
}

// readPeer reads the kernel's credentials and groups of c's peer, with a
// pidfd pinning the peer process (the caller closes it; -1 when it could
// not be had, err then says why).
func readPeer(c *net.UnixConn) (Peer, int, error) {
	p, err := readCred(c)
	if err != nil {
		return p, -1, err
	}
	raw, err := c.SyscallConn()
	if err != nil {
		return p, -1, err
	}
	pidfd := -1
	var opErr error
	if err := raw.Control(func(fd uintptr) {
		if p.Groups, opErr = peerGroups(int(fd)); opErr != nil {
			opErr = fmt.Errorf("SO_PEERGROUPS: %w", opErr)
			return
		}
		if pidfd, opErr = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_PEERPIDFD); opErr != nil {
			pidfd, opErr = -1, fmt.Errorf("SO_PEERPIDFD: %w", opErr)
		}
	}); err != nil {
		return p, -1, err
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

// identify decides whether c's peer may use the API: it must not be
// confined (checkUnconfined) and must be root or in the daemon's group.
func (a *Authorizer) identify(c *net.UnixConn) (Peer, *ForbiddenError) {
	p, pidfd, err := readPeer(c)
	if pidfd >= 0 {
		defer unix.Close(pidfd)
	}
	if err != nil {
		return p, forbidden(RulePeerUnverified, "cannot read the caller's credentials: %v", err)
	}
	if ferr := a.checkUnconfined(p, pidfd); ferr != nil {
		return p, ferr
	}
	return p, a.Check(p)
}

// peerContext attaches c's peer, to be identified at its first request.
func (a *Authorizer) peerContext(ctx context.Context, c net.Conn) context.Context {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return ctx
	}
	return context.WithValue(ctx, peerKey{}, &connPeer{auth: a, conn: uc})
}

// connPeerFrom returns the connection's peer, identified.
func connPeerFrom(ctx context.Context) *connPeer {
	cp, _ := ctx.Value(peerKey{}).(*connPeer)
	if cp != nil {
		cp.decide()
	}
	return cp
}

// peerFrom returns the caller of a request.
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
