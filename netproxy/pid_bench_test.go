package netproxy

import (
	"net"
	"net/netip"
	"strconv"
	"testing"
)

// BenchmarkPIDLookup times finding the process of one client connection
// (what the proxy does for each connection before serving it) while that
// process holds n connections to the proxy: from the record of who
// connected (connPids), and by the fallback's scan of /proc.
func BenchmarkPIDLookup(b *testing.B) {
	for _, tc := range []struct {
		how string
		n   int
	}{{"record", 10}, {"record", 200}, {"scan", 10}, {"scan", 200}} {
		b.Run(tc.how+"/conns="+strconv.Itoa(tc.n), func(b *testing.B) {
			n := tc.n
			f := startFixture(b, Config{Policy: allow(b, "127.0.0.1:1"), MaxConns: 512, MaxConnsPerProcess: 512})
			fl := f.startFlooder(b, "127.0.0.1:"+strconv.Itoa(f.p.Port()), n)
			var c net.Conn
			f.p.connMu.Lock()
			for k := range f.p.conns {
				c = k
			}
			f.p.connMu.Unlock()
			if c == nil {
				b.Fatal("no connection open")
			}
			if f.p.pids.conns == nil {
				b.Fatal("the proxy does not record who connects")
			}
			if tc.how == "scan" {
				f.p.pids.conns = nil
			}
			client := netip.MustParseAddrPort(c.RemoteAddr().String())
			dst := netip.MustParseAddrPort(c.LocalAddr().String())
			for b.Loop() {
				if pid := f.p.pids.pid(client, dst); pid != fl.cmd.Process.Pid {
					b.Fatalf("pid %d, want the flooder's %d", pid, fl.cmd.Process.Pid)
				}
			}
		})
	}
}
