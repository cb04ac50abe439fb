package netproxy

import (
	"encoding/binary"
	"encoding/hex"
	"io"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestDiagRequest(t *testing.T) {
	b := diagRequest(2, netip.MustParseAddrPort("127.0.0.1:50000"), netip.MustParseAddrPort("127.88.0.5:443"))
	// nlmsghdr (len 72, type 20, NLM_F_REQUEST); family 2, TCP; every
	// state; ports 50000, 443 big-endian; src, dst in 16 bytes each;
	// interface 0; INET_DIAG_NOCOOKIE.
	want := "48000000" + "1400" + "0100" + "00000000" + "00000000" + "02060000" + "ffffffff" + "c350" + "01bb" +
		"7f000001" + strings.Repeat("0", 24) + "7f580005" + strings.Repeat("0", 24) + "00000000" + "ffffffffffffffff"
	if got := hex.EncodeToString(b); got != want {
		t.Errorf("diagRequest =\n%s, want\n%s", got, want)
	}
	b6 := diagRequest(10, netip.MustParseAddrPort("127.0.0.1:1"), netip.MustParseAddrPort("[::1]:2"))
	if got := hex.EncodeToString(b6[16+12 : 16+44]); got != "00000000000000000000ffff7f000001"+"00000000000000000000000000000001" {
		t.Errorf("AF_INET6 addresses %s", got)
	}
	msg := make([]byte, 16+72)
	msg[4] = 20
	msg[16+68], msg[16+69] = 0x39, 0x30
	binary.NativeEndian.PutUint32(msg[16+44:], 0x89abcdef) // idiag_cookie, low word first
	binary.NativeEndian.PutUint32(msg[16+48:], 0x01234567)
	if ino, cookie := diagSocket(msg); ino != 12345 || cookie != 0x0123456789abcdef {
		t.Errorf("diagSocket = %d %#x", ino, cookie)
	}
	msg[4] = 2 // NLMSG_ERROR: nothing found
	if ino, _ := diagSocket(msg); ino != 0 {
		t.Errorf("diagSocket of an error = %d", ino)
	}
	if ino, _ := diagSocket(msg[:20]); ino != 0 {
		t.Errorf("diagSocket of a short answer = %d", ino)
	}
}

// TestListenersMatch: an IPv4 listener (its wildcard included) takes
// IPv4 destinations only — a probe of localhost's ::1 finds nothing on a
// 0.0.0.0 listener and must be refused at connect(), so the client tries
// 127.0.0.1 next —, an IPv6 wildcard takes both.
func TestListenersMatch(t *testing.T) {
	msg := func(fam uint8, addr netip.Addr, port uint16) []byte {
		b := make([]byte, unix.SizeofNlMsghdr+72)
		binary.NativeEndian.PutUint32(b[0:], uint32(len(b)))
		binary.NativeEndian.PutUint16(b[4:], unix.SOCK_DIAG_BY_FAMILY)
		m := b[unix.SizeofNlMsghdr:]
		m[0] = fam
		binary.BigEndian.PutUint16(m[4:6], port)
		a16 := addr.As16()
		if fam == unix.AF_INET {
			a4 := addr.As4()
			copy(m[8:12], a4[:])
		} else {
			copy(m[8:24], a16[:])
		}
		return b
	}
	v4any, v6any := netip.IPv4Unspecified(), netip.IPv6Unspecified()
	lo4, lo6 := netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("::1")
	for _, c := range []struct {
		name string
		fam  uint8
		addr netip.Addr
		dst  netip.AddrPort
		want bool
	}{
		{"0.0.0.0 takes 127.0.0.1", unix.AF_INET, v4any, netip.AddrPortFrom(lo4, 8080), true},
		{"0.0.0.0 does not take ::1", unix.AF_INET, v4any, netip.AddrPortFrom(lo6, 8080), false},
		{"127.0.0.1 does not take ::1", unix.AF_INET, lo4, netip.AddrPortFrom(lo6, 8080), false},
		{":: takes ::1", unix.AF_INET6, v6any, netip.AddrPortFrom(lo6, 8080), true},
		{":: takes 127.0.0.1", unix.AF_INET6, v6any, netip.AddrPortFrom(lo4, 8080), true},
		{"another port", unix.AF_INET, v4any, netip.AddrPortFrom(lo4, 8081), false},
	} {
		if hit, _ := listenersMatch(msg(c.fam, c.addr, 8080), c.dst); hit != c.want {
			t.Errorf("%s: hit %v, want %v", c.name, hit, c.want)
		}
	}
}

// TestCgroup2Mount: the cgroup v2 hierarchy's root, on a hybrid host
// and a unified one; none on a v1-only host or for a bind of a subtree.
func TestCgroup2Mount(t *testing.T) {
	v1 := "35 25 0:30 / /sys/fs/cgroup/cpu rw,relatime shared:10 - cgroup cgroup rw,cpu\n"
	for _, c := range []struct{ mountinfo, want string }{
		{v1 + "40 25 0:35 / /sys/fs/cgroup/unified rw,relatime shared:15 - cgroup2 cgroup2 rw\n", "/sys/fs/cgroup/unified"},
		{"30 24 0:26 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate\n", "/sys/fs/cgroup"},
		{v1, ""},
		{"50 24 0:26 /user.slice /mnt/cg rw shared:4 - cgroup2 cgroup2 rw\n", ""},
	} {
		if got := cgroup2Mount([]byte(c.mountinfo)); got != c.want {
			t.Errorf("cgroup2Mount(%q) = %q, want %q", c.mountinfo, got, c.want)
		}
	}
}

// TestPIDFromConnectRecord: the proxy knows a connection's process from
// the record of who connected it, with no scan of /proc: a connection
// this process makes from a thread that joined the run's namespace is
// its own (a scan finds no process of the namespace: this one's leader
// is in the host's), and a process of the namespace's holds (the
// flooder, several connections) are its.
func TestPIDFromConnectRecord(t *testing.T) {
	srv := newCountingServer(t, "ok")
	addr := "127.0.0.1:" + strconv.Itoa(srv.port())
	f := startFixture(t, Config{Policy: allow(t, addr)})
	if f.p.pids.conns == nil {
		t.Fatal("the proxy does not record who connects (eBPF cgroup/connect programs)")
	}
	c, err := f.dialIn(t, addr)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(c, "GET / HTTP/1.0\r\nHost: x\r\n\r\n")
	io.ReadAll(c)
	c.Close()
	fl := f.startFlooder(t, addr, 3)
	fl.count(t)
	fl.in.Close() // its connections end: their events are sent
	fl.cmd.Wait()
	var pids []int
	for _, ev := range f.waitEvents(t, 4) {
		pids = append(pids, ev.PID)
	}
	want := []int{os.Getpid(), fl.cmd.Process.Pid, fl.cmd.Process.Pid, fl.cmd.Process.Pid}
	slices.Sort(pids)
	slices.Sort(want)
	if !slices.Equal(pids, want) {
		t.Fatalf("event pids %v, want %v (this process's, the flooder's)", pids, want)
	}
}
