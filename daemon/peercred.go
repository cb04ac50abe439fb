package daemon

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/user"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Peer is the process on the other end of an API connection, as the
// kernel reports it (SO_PEERCRED): it cannot be forged by the client.
type Peer struct {
	PID int32
	UID uint32
	GID uint32
}

type peerKey struct{}

// peerContext is an http.Server ConnContext that records the peer of
// each unix-socket connection.
func peerContext(ctx context.Context, c net.Conn) context.Context {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return ctx
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return ctx
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil || credErr != nil {
		return ctx
	}
	return context.WithValue(ctx, peerKey{}, Peer{PID: cred.Pid, UID: cred.Uid, GID: cred.Gid})
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

// Check returns nil when p may use the API, or the reason it may not.
func (a *Authorizer) Check(p Peer) error {
	if p.UID == 0 {
		return nil
	}
	if a.GroupName == "" {
		return fmt.Errorf("uid %d is not root, and the daemon allows no group", p.UID)
	}
	if p.GID == a.GID {
		return nil
	}
	groups, err := processGroups(p.PID)
	if err != nil {
		return fmt.Errorf("uid %d: cannot read its groups: %v", p.UID, err)
	}
	for _, g := range groups {
		if g == a.GID {
			return nil
		}
	}
	return fmt.Errorf("uid %d is neither root nor a member of group %q", p.UID, a.GroupName)
}

// processGroups reads the supplementary groups of process pid.
func processGroups(pid int32) ([]uint32, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		rest, ok := strings.CutPrefix(line, "Groups:")
		if !ok {
			continue
		}
		var out []uint32
		for _, f := range strings.Fields(rest) {
			g, err := strconv.ParseUint(f, 10, 32)
			if err != nil {
				return nil, fmt.Errorf("bad group %q", f)
			}
			out = append(out, uint32(g))
		}
		return out, nil
	}
	return nil, errors.New("no Groups line")
}
