package netproxy

import (
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"os"
	"runtime"
	"unsafe"

	"github.com/google/nftables"
	"github.com/google/nftables/binaryutil"
	"github.com/google/nftables/expr"
	"golang.org/x/sys/unix"
)

// inNetNS runs fn on a thread that has joined the network namespace ns,
// then returns the thread to the namespace of the process (host). A
// socket fn makes belongs to ns for its whole life, whichever thread
// uses it later. If the thread cannot return, it stays locked and ends
// with the goroutine (Go then discards it).
func inNetNS(ns, host *os.File, fn func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := unix.Setns(int(ns.Fd()), unix.CLONE_NEWNET); err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("join the run's network namespace: %w", err)
			return
		}
		err := fn()
		if serr := unix.Setns(int(host.Fd()), unix.CLONE_NEWNET); serr != nil {
			errc <- fmt.Errorf("return to the host's network namespace: %w", serr)
			return // the thread stays locked: Go ends it with the goroutine
		}
		runtime.UnlockOSThread()
		errc <- err
	}()
	return <-errc
}

// nftTable is the table of a run's redirect rules.
const nftTable = "authbench_proxy"

// installRedirect makes every TCP connection made in ns (IPv4 and IPv6)
// go to the proxy's port on loopback (nat output: REDIRECT), except the
// proxy's own sockets, which carry mark. The original destination stays
// readable with SO_ORIGINAL_DST.
func installRedirect(ns *os.File, port uint16, mark uint32) error {
	c, err := nftables.New(nftables.WithNetNSFd(int(ns.Fd())))
	if err != nil {
		return fmt.Errorf("nftables: %w", err)
	}
	defer c.CloseLasting()
	t := c.AddTable(&nftables.Table{Family: nftables.TableFamilyINet, Name: nftTable})
	ch := c.AddChain(&nftables.Chain{Name: "output", Table: t, Type: nftables.ChainTypeNAT,
		Hooknum: nftables.ChainHookOutput, Priority: nftables.ChainPriorityNATDest})
	c.AddRule(&nftables.Rule{Table: t, Chain: ch, Exprs: []expr.Any{
		&expr.Meta{Key: expr.MetaKeyMARK, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: binaryutil.NativeEndian.PutUint32(mark)},
		&expr.Verdict{Kind: expr.VerdictReturn},
	}})
	c.AddRule(&nftables.Rule{Table: t, Chain: ch, Exprs: []expr.Any{
		&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{unix.IPPROTO_TCP}},
		&expr.Immediate{Register: 1, Data: binaryutil.BigEndian.PutUint16(port)},
		&expr.Redir{RegisterProtoMin: 1},
	}})
	if err := c.Flush(); err != nil {
		return fmt.Errorf("nftables: install the redirect to the proxy: %w", err)
	}
	return nil
}

// originalDst is the destination a redirected connection was made to
// (SO_ORIGINAL_DST / IP6T_SO_ORIGINAL_DST); for a connection made to the
// proxy itself it is the proxy's own address.
func originalDst(c *net.TCPConn) (netip.AddrPort, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return netip.AddrPort{}, err
	}
	v6 := false
	if la, ok := c.LocalAddr().(*net.TCPAddr); ok && la.IP.To4() == nil {
		v6 = true
	}
	var out netip.AddrPort
	var serr error
	err = raw.Control(func(fd uintptr) {
		var buf [28]byte // sockaddr_in6; sockaddr_in fits
		n := uint32(len(buf))
		level, opt := unix.SOL_IP, unix.SO_ORIGINAL_DST
		if v6 {
			level, opt = unix.SOL_IPV6, ip6tSOOriginalDst
		}
		_, _, e := unix.Syscall6(unix.SYS_GETSOCKOPT, fd, uintptr(level), uintptr(opt),
			uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&n)), 0)
		if e != 0 {
			serr = e
			return
		}
		port := binary.BigEndian.Uint16(buf[2:4])
		if v6 {
			out = netip.AddrPortFrom(netip.AddrFrom16([16]byte(buf[8:24])).Unmap(), port)
		} else {
			out = netip.AddrPortFrom(netip.AddrFrom4([4]byte(buf[4:8])), port)
		}
	})
	if err == nil {
		err = serr
	}
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("original destination: %w", err)
	}
	return out, nil
}

// ip6tSOOriginalDst is IP6T_SO_ORIGINAL_DST (linux/netfilter_ipv6/ip6_tables.h),
// which x/sys/unix does not define.
const ip6tSOOriginalDst = 80
