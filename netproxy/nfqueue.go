package netproxy

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"sync/atomic"

	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"
)

// nfnetlink_queue (linux/netfilter/nfnetlink_queue.h): message types of
// subsystem NFNL_SUBSYS_QUEUE, attributes, commands and verdicts.
const (
	nfnlSubsysQueue    = 3
	nfqnlMsgPacket     = 0
	nfqnlMsgVerdict    = 1
	nfqnlMsgConfig     = 2
	nfqaPacketHdr      = 1
	nfqaVerdictHdr     = 2
	nfqaMark           = 3
	nfqaPayload        = 10
	nfqaCfgCmd         = 1
	nfqaCfgParams      = 2
	nfqnlCfgCmdBind    = 1
	nfqnlCopyPacket    = 2
	nfAccept           = 1
	nfRepeat           = 4
	synQueueCopyLength = 128 // an IP header and a TCP header
)

// synQueue reads the SYNs the queue_syn rule sends to the proxy (one
// netlink socket of the run's namespace) and gives each a verdict: let it
// through unchanged, or mark it for the redirect to the proxy.
type synQueue struct {
	c      *netlink.Conn
	closed atomic.Bool
}

// openSYNQueue binds queueNum of the namespace ns.
func openSYNQueue(ns *os.File) (*synQueue, error) {
	c, err := netlink.Dial(unix.NETLINK_NETFILTER, &netlink.Config{NetNS: int(ns.Fd())})
	if err != nil {
		return nil, fmt.Errorf("netfilter queue: %w", err)
	}
	q := &synQueue{c: c}
	cmd := []byte{nfqnlCfgCmdBind, 0, 0, 0}
	params := binary.BigEndian.AppendUint32(nil, synQueueCopyLength)
	params = append(params, nfqnlCopyPacket)
	for _, attr := range []struct {
		typ  uint16
		data []byte
	}{{nfqaCfgCmd, cmd}, {nfqaCfgParams, params}} {
		ae := netlink.NewAttributeEncoder()
		ae.Bytes(attr.typ, attr.data)
		b, err := ae.Encode()
		if err == nil {
			_, err = c.Execute(q.message(nfqnlMsgConfig, netlink.Request|netlink.Acknowledge, b))
		}
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("netfilter queue %d: bind: %w", queueNum, err)
		}
	}
	return q, nil
}

// message is an nfnetlink message of the queue subsystem for queueNum.
func (q *synQueue) message(typ uint16, flags netlink.HeaderFlags, attrs []byte) netlink.Message {
	nfgen := []byte{unix.AF_UNSPEC, unix.NFNETLINK_V0, 0, 0}
	binary.BigEndian.PutUint16(nfgen[2:], queueNum)
	return netlink.Message{
		Header: netlink.Header{Type: netlink.HeaderType(nfnlSubsysQueue<<8 | typ), Flags: flags},
		Data:   append(nfgen, attrs...),
	}
}

// serve gives every queued SYN decide's verdict until the queue is
// closed: redirect marks it with mark (the nat rule then sends it to the
// proxy), else it goes through unchanged.
func (q *synQueue) serve(mark uint32, decide func(src, dst netip.AddrPort) (redirect bool)) error {
	for {
		msgs, err := q.c.Receive()
		if err != nil {
			if q.closed.Load() || errors.Is(err, os.ErrClosed) || errors.Is(err, unix.EBADF) {
				return nil // closed by close: the proxy's end
			}
			var oe *netlink.OpError
			if errors.As(err, &oe) && errors.Is(oe.Err, unix.ENOBUFS) {
				continue // the kernel dropped some: they went through (bypass)
			}
			return err
		}
		for _, m := range msgs {
			id, src, dst, ok := parseQueuedSYN(m)
			if !ok {
				continue
			}
			redirect := decide(src, dst)
			if err := q.verdict(id, redirect, mark); err != nil {
				return err
			}
		}
	}
}

// verdict answers packet id.
func (q *synQueue) verdict(id uint32, redirect bool, mark uint32) error {
	ae := netlink.NewAttributeEncoder()
	v := nfAccept
	if redirect {
		v = nfRepeat
		ae.Bytes(nfqaMark, binary.BigEndian.AppendUint32(nil, mark))
	}
	hdr := binary.BigEndian.AppendUint32(nil, uint32(v))
	ae.Bytes(nfqaVerdictHdr, binary.BigEndian.AppendUint32(hdr, id))
	b, err := ae.Encode()
	if err != nil {
		return err
	}
	_, err = q.c.Send(q.message(nfqnlMsgVerdict, netlink.Request, b))
	return err
}

func (q *synQueue) close() error {
	q.closed.Store(true)
	return q.c.Close()
}

// parseQueuedSYN reads a queued packet message: its id and the TCP
// connection's source and destination. It is pure.
func parseQueuedSYN(m netlink.Message) (id uint32, src, dst netip.AddrPort, ok bool) {
	if m.Header.Type != netlink.HeaderType(nfnlSubsysQueue<<8|nfqnlMsgPacket) || len(m.Data) < 4 {
		return 0, src, dst, false
	}
	ad, err := netlink.NewAttributeDecoder(m.Data[4:])
	if err != nil {
		return 0, src, dst, false
	}
	var payload []byte
	haveID := false
	for ad.Next() {
		switch ad.Type() {
		case nfqaPacketHdr:
			if b := ad.Bytes(); len(b) >= 4 {
				id, haveID = binary.BigEndian.Uint32(b), true
			}
		case nfqaPayload:
			payload = ad.Bytes()
		}
	}
	if !haveID {
		return 0, src, dst, false
	}
	src, dst, ok = tcpEndpoints(payload)
	return id, src, dst, ok
}

// tcpEndpoints reads the addresses and ports of an IPv4 or IPv6 packet
// carrying TCP (no IPv6 extension headers: a SYN from a socket has
// none). It is pure.
func tcpEndpoints(p []byte) (src, dst netip.AddrPort, ok bool) {
	if len(p) < 1 {
		return src, dst, false
	}
	var s, d netip.Addr
	var tcp []byte
	switch p[0] >> 4 {
	case 4:
		ihl := int(p[0]&0x0f) * 4
		if ihl < 20 || len(p) < ihl+4 || p[9] != unix.IPPROTO_TCP {
			return src, dst, false
		}
		s, d, tcp = netip.AddrFrom4([4]byte(p[12:16])), netip.AddrFrom4([4]byte(p[16:20])), p[ihl:]
	case 6:
		if len(p) < 44 || p[6] != unix.IPPROTO_TCP {
			return src, dst, false
		}
		s, d, tcp = netip.AddrFrom16([16]byte(p[8:24])), netip.AddrFrom16([16]byte(p[24:40])), p[40:]
	default:
		return src, dst, false
	}
	return netip.AddrPortFrom(s, binary.BigEndian.Uint16(tcp[0:2])), netip.AddrPortFrom(d, binary.BigEndian.Uint16(tcp[2:4])), true
}
