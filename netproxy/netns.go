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
	"github.com/google/nftables/xt"
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

// queueNum is the netfilter queue the proxy reads loopback SYNs from (a
// queue number is per network namespace).
const queueNum = 0

// installRedirect installs the rules that bring TCP connections made in
// ns to the proxy's port on loopback:
//
//   - filter output (priority -150, tables ip and ip6): the SYN of a new connection to a
//     loopback address (127/8 but the stand-ins, ::1) goes to the
//     proxy's netfilter queue (synQueue), which marks it redirect (a
//     service of the run listens there, or the host's loopback is
//     allowed) or lets it through unchanged: nothing listens in the
//     namespace, so the kernel refuses it as it would without a proxy
//     (ECONNREFUSED, not an accepted connection reset later) — and the
//     proxy has recorded the attempt. Without a reader (bypass) it goes
//     through unchanged.
//   - nat output (priority -100): connections marked redirect, and every
//     connection to a stand-in address (127.88/16), go to the proxy's
//     port (REDIRECT; SO_ORIGINAL_DST keeps where they were going).
//
// The proxy's own sockets carry mark own and are left alone. Addresses
// outside loopback need no rule: the namespace has no route to them.
func installRedirect(ns *os.File, port uint16, own, redirect uint32) error {
	c, err := nftables.New(nftables.WithNetNSFd(int(ns.Fd())))
	if err != nil {
		return fmt.Errorf("nftables: %w", err)
	}
	defer c.CloseLasting()
	t := c.AddTable(&nftables.Table{Family: nftables.TableFamilyINet, Name: nftTable})
	n := c.AddChain(&nftables.Chain{Name: "redirect", Table: t, Type: nftables.ChainTypeNAT,
		Hooknum: nftables.ChainHookOutput, Priority: nftables.ChainPriorityNATDest})
	ret := &expr.Verdict{Kind: expr.VerdictReturn}
	toProxy := []expr.Any{
		&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{unix.IPPROTO_TCP}},
		&expr.Immediate{Register: 1, Data: binaryutil.BigEndian.PutUint16(port)},
		&expr.Redir{RegisterProtoMin: 1},
	}
	// The kernel here has no nft queue expression (CONFIG_NFT_QUEUE) but
	// xtables' NFQUEUE target through nft_compat, which the inet family
	// does not take: one queue table per family.
	q4 := queueChain(c, nftables.TableFamilyIPv4)
	q6 := queueChain(c, nftables.TableFamilyIPv6)
	rules := []struct {
		chain *nftables.Chain
		exprs []expr.Any
	}{
		{q4, append(markIs(own), ret)},
		{q4, append(markIs(redirect), ret)},
		{q4, append(standIn(), ret)},
		{q4, append(append(ipv4Loopback(), isSYN()...), nfqueueTarget())},
		{q6, append(markIs(own), ret)},
		{q6, append(markIs(redirect), ret)},
		{q6, append(append(ipv6Loopback(), isSYN()...), nfqueueTarget())},
		{n, append(markIs(own), ret)},
		{n, append(markIs(redirect), toProxy...)},
		{n, append(standIn(), toProxy...)},
	}
	for _, r := range rules {
		c.AddRule(&nftables.Rule{Table: r.chain.Table, Chain: r.chain, Exprs: r.exprs})
	}
	if err := c.Flush(); err != nil {
		return fmt.Errorf("nftables: install the redirect to the proxy: %w", err)
	}
	return nil
}

// queueChain adds the table of family and its chain that queues SYNs
// (filter output, before the nat chain).
func queueChain(c *nftables.Conn, family nftables.TableFamily) *nftables.Chain {
	t := c.AddTable(&nftables.Table{Family: family, Name: nftTable + "_queue"})
	return c.AddChain(&nftables.Chain{Name: "queue_syn", Table: t, Type: nftables.ChainTypeFilter,
		Hooknum: nftables.ChainHookOutput, Priority: nftables.ChainPriorityRef(-150)})
}

// nfqueueTarget is xtables' NFQUEUE target (revision 3: struct
// xt_NFQ_info_v3, padded to 8 bytes) to queueNum, with bypass: without a
// reader the packet goes on.
func nfqueueTarget() *expr.Target {
	info := make([]byte, 8)
	binary.NativeEndian.PutUint16(info[0:], queueNum)
	binary.NativeEndian.PutUint16(info[2:], 1) // queues_total
	binary.NativeEndian.PutUint16(info[4:], 1) // NFQ_FLAG_BYPASS
	u := xt.Unknown(info)
	return &expr.Target{Name: "NFQUEUE", Rev: 3, Info: &u}
}

// markIs matches packets whose mark is m.
func markIs(m uint32) []expr.Any {
	return []expr.Any{
		&expr.Meta{Key: expr.MetaKeyMARK, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: binaryutil.NativeEndian.PutUint32(m)},
	}
}

// isSYN matches TCP segments with SYN and without ACK (a connection's
// first).
func isSYN() []expr.Any {
	return []expr.Any{
		&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{unix.IPPROTO_TCP}},
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseTransportHeader, Offset: 13, Len: 1},
		&expr.Bitwise{SourceRegister: 1, DestRegister: 1, Len: 1, Mask: []byte{0x12}, Xor: []byte{0}},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{0x02}},
	}
}

// ipv4Dst matches IPv4 packets to addresses of prefix.
func ipv4Dst(prefix netip.Prefix) []expr.Any {
	mask := net.CIDRMask(prefix.Bits(), 32)
	a := prefix.Addr().As4()
	return []expr.Any{
		&expr.Meta{Key: expr.MetaKeyNFPROTO, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{unix.NFPROTO_IPV4}},
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: 16, Len: 4},
		&expr.Bitwise{SourceRegister: 1, DestRegister: 1, Len: 4, Mask: mask, Xor: []byte{0, 0, 0, 0}},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: a[:]},
	}
}

func standIn() []expr.Any      { return ipv4Dst(mappedPrefix) }
func ipv4Loopback() []expr.Any { return ipv4Dst(netip.MustParsePrefix("127.0.0.0/8")) }

// ipv6Loopback matches IPv6 packets to ::1.
func ipv6Loopback() []expr.Any {
	a := netip.IPv6Loopback().As16()
	return []expr.Any{
		&expr.Meta{Key: expr.MetaKeyNFPROTO, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{unix.NFPROTO_IPV6}},
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: 24, Len: 16},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: a[:]},
	}
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
