package netproxy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// pidFinder maps a client's connection in the run's network namespace to
// its process. A sock_diag query for the exact connection (a netlink
// socket made inside the namespace: an O(1) lookup, where /proc/net/tcp
// walks every TCP socket of the host) gives the socket's cookie and
// inode; the process that connected the socket is recorded under its
// cookie (connPids) when the finder records. Without a record (the
// programs could not be attached, or the entry was evicted) the process
// is the one among those in that namespace whose descriptors include
// socket:[inode], found by scanning /proc (TCP has no SO_PEERCRED; a
// socket passed to another process is found in the first one scanned).
type pidFinder struct {
	mu       sync.Mutex
	diag     int    // NETLINK_SOCK_DIAG socket of the namespace
	nsIno    uint64 // the namespace's inode
	nsCookie uint64 // and its cookie
	proc     string // "/proc"
	buf      []byte
	conns    *connPids // nil: not recording
}

// newPIDFinder opens a sock_diag socket in the calling thread's network
// namespace (call it inside inNetNS).
func newPIDFinder() (*pidFinder, error) {
	f := &pidFinder{proc: "/proc", diag: -1, buf: make([]byte, 8192)}
	var st unix.Stat_t
	if err := unix.Stat("/proc/thread-self/ns/net", &st); err != nil {
		return nil, err
	}
	f.nsIno = st.Ino
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return nil, fmt.Errorf("sock_diag socket: %w", err)
	}
	tv := unix.Timeval{Sec: 1}
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	f.diag = fd
	// Linux 5.14; without it the finder cannot record (record fails).
	f.nsCookie, _ = unix.GetsockoptUint64(fd, unix.SOL_SOCKET, unix.SO_NETNS_COOKIE)
	return f, nil
}

// record starts recording who connects in the finder's namespace
// (connPids), so that pid needs no scan of /proc.
func (f *pidFinder) record() error {
	if f.nsCookie == 0 {
		return errors.New("no network namespace cookie (SO_NETNS_COOKIE, Linux 5.14)")
	}
	c, err := loadedConnPids()
	if err != nil {
		return err
	}
	if err := c.watch(f.nsCookie); err != nil {
		return fmt.Errorf("record the namespace's connections: %w", err)
	}
	f.conns = c
	return nil
}

func (f *pidFinder) close() {
	if f.conns != nil {
		f.conns.unwatch(f.nsCookie)
	}
	if f.diag >= 0 {
		unix.Close(f.diag)
	}
}

// pid returns the process of the client end of the TCP connection
// client → dst (dst as the client's socket sees it: the original
// destination): the one that connected it when recorded, else the one
// holding it; 0 when none is found.
func (f *pidFinder) pid(client, dst netip.AddrPort) int {
	ino, cookie := f.socket(client, dst)
	if ino == 0 {
		return 0
	}
	if f.conns != nil {
		if pid, ok := f.conns.lookup(cookie); ok {
			return pid
		}
	}
	return f.holder(ino)
}

// socket asks the kernel for the socket client → dst (AF_INET, else an
// AF_INET6 socket with mapped addresses): its inode and cookie.
func (f *pidFinder) socket(client, dst netip.AddrPort) (ino, cookie uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	families := []uint8{unix.AF_INET6}
	if client.Addr().Is4() {
		families = []uint8{unix.AF_INET, unix.AF_INET6}
	}
	for _, fam := range families {
		if err := unix.Send(f.diag, diagRequest(fam, client, dst), 0); err != nil {
			return 0, 0
		}
		n, err := unix.Read(f.diag, f.buf)
		if err != nil {
			return 0, 0
		}
		if ino, cookie := diagSocket(f.buf[:n]); ino != 0 {
			return ino, cookie
		}
	}
	return 0, 0
}

// diagAddr writes a as a sock_diag address of family fam (IPv4 in the
// first word; IPv4-mapped for AF_INET6).
func diagAddr(b []byte, fam uint8, a netip.Addr) {
	if fam == unix.AF_INET {
		a4 := a.Unmap().As4()
		copy(b, a4[:])
		return
	}
	a16 := a.As16()
	copy(b, a16[:])
}

// diagRequest is a SOCK_DIAG_BY_FAMILY request (struct
// inet_diag_req_v2) for the one TCP socket src → dst of family fam. It
// is pure.
func diagRequest(fam uint8, src, dst netip.AddrPort) []byte {
	const hdr, req = unix.SizeofNlMsghdr, 56
	b := make([]byte, hdr+req)
	binary.NativeEndian.PutUint32(b[0:], hdr+req)
	binary.NativeEndian.PutUint16(b[4:], unix.SOCK_DIAG_BY_FAMILY)
	binary.NativeEndian.PutUint16(b[6:], unix.NLM_F_REQUEST)
	r := b[hdr:]
	r[0], r[1] = fam, unix.IPPROTO_TCP
	binary.NativeEndian.PutUint32(r[4:], 0xffffffff) // every state
	binary.BigEndian.PutUint16(r[8:], src.Port())
	binary.BigEndian.PutUint16(r[10:], dst.Port())
	diagAddr(r[12:28], fam, src.Addr())
	diagAddr(r[28:44], fam, dst.Addr())
	binary.NativeEndian.PutUint32(r[48:], 0xffffffff) // INET_DIAG_NOCOOKIE
	binary.NativeEndian.PutUint32(r[52:], 0xffffffff)
	return b
}

// diagSocket reads the inode and cookie of a sock_diag answer (struct
// inet_diag_msg; the cookie is two native 32-bit words, low first), 0
// for an error or nothing found. It is pure.
func diagSocket(b []byte) (ino, cookie uint64) {
	const hdr = unix.SizeofNlMsghdr
	if len(b) < hdr+72 || binary.NativeEndian.Uint16(b[4:]) != unix.SOCK_DIAG_BY_FAMILY {
		return 0, 0
	}
	cookie = uint64(binary.NativeEndian.Uint32(b[hdr+44:])) | uint64(binary.NativeEndian.Uint32(b[hdr+48:]))<<32
	return uint64(binary.NativeEndian.Uint32(b[hdr+68:])), cookie
}

// holder scans the processes in the finder's namespace for a descriptor
// of socket inode ino.
func (f *pidFinder) holder(ino uint64) int {
	d, err := os.Open(f.proc)
	if err != nil {
		return 0
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	want := []byte("socket:[" + strconv.FormatUint(ino, 10) + "]")
	nsLink := []byte("net:[" + strconv.FormatUint(f.nsIno, 10) + "]")
	buf := make([]byte, 64)
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		n, err := unix.Readlink(f.proc+"/"+name+"/ns/net", buf)
		if err != nil || !bytes.Equal(buf[:n], nsLink) {
			continue
		}
		fds, err := os.ReadDir(f.proc + "/" + name + "/fd")
		if err != nil {
			continue
		}
		for _, fd := range fds {
			n, err := unix.Readlink(f.proc+"/"+name+"/fd/"+fd.Name(), buf)
			if err == nil && bytes.Equal(buf[:n], want) {
				return pid
			}
		}
	}
	return 0
}

// listening reports whether a TCP socket of the namespace listens where
// dst would reach it: on dst's port, at dst's address or a wildcard one
// (an IPv6 wildcard listener takes IPv4 too).
func (f *pidFinder) listening(dst netip.AddrPort) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	found := false
	for _, fam := range []uint8{unix.AF_INET, unix.AF_INET6} {
		req := diagRequest(fam, netip.AddrPortFrom(netip.IPv4Unspecified(), 0), netip.AddrPortFrom(netip.IPv4Unspecified(), 0))
		binary.NativeEndian.PutUint16(req[6:], unix.NLM_F_REQUEST|unix.NLM_F_DUMP)
		binary.NativeEndian.PutUint32(req[unix.SizeofNlMsghdr+4:], 1<<tcpListen)
		if err := unix.Send(f.diag, req, 0); err != nil {
			return false
		}
		for done := false; !done; {
			n, err := unix.Read(f.diag, f.buf)
			if err != nil {
				return found
			}
			var hit bool
			hit, done = listenersMatch(f.buf[:n], dst)
			found = found || hit
		}
	}
	return found
}

// listenersMatch reads one buffer of a sock_diag dump of listening
// sockets: whether one takes dst, and whether the dump ended (DONE or an
// error). It is pure.
func listenersMatch(b []byte, dst netip.AddrPort) (hit, done bool) {
	const hdr = unix.SizeofNlMsghdr
	for len(b) >= hdr {
		l := int(binary.NativeEndian.Uint32(b[0:]))
		typ := binary.NativeEndian.Uint16(b[4:])
		if l < hdr || l > len(b) {
			return hit, true
		}
		switch typ {
		case unix.NLMSG_DONE, unix.NLMSG_ERROR:
			return hit, true
		case unix.SOCK_DIAG_BY_FAMILY:
			m := b[hdr:l]
			if len(m) >= 24 && binary.BigEndian.Uint16(m[4:6]) == dst.Port() {
				var a netip.Addr
				want := dst.Addr().Unmap()
				if m[0] == unix.AF_INET {
					// An IPv4 socket (its wildcard included) takes IPv4 only:
					// a connection to ::1 finds nothing there.
					a = netip.AddrFrom4([4]byte(m[8:12]))
					if !want.Is4() {
						break
					}
				} else {
					a = netip.AddrFrom16([16]byte(m[8:24])).Unmap()
				}
				if a.IsUnspecified() || a == want {
					hit = true
				}
			}
		}
		b = b[(l+3)&^3:]
	}
	return hit, false
}

// tcpListen is the kernel's TCP_LISTEN state (include/net/tcp_states.h).
const tcpListen = 10
