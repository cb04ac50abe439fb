package daemon

import (
	"net"
	"path/filepath"
	"testing"
)

// BenchmarkPeerIdentify measures what identifying one connection's peer
// costs the daemon (credentials, groups, pidfd, /proc reads, pidfd check).
func BenchmarkPeerIdentify(b *testing.B) {
	auth, err := NewAuthorizer("")
	if err != nil {
		b.Fatal(err)
	}
	sock := filepath.Join(b.TempDir(), "s")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("unix", sock)
	if err != nil {
		b.Fatal(err)
	}
	defer client.Close()
	server, err := ln.AcceptUnix()
	if err != nil {
		b.Fatal(err)
	}
	defer server.Close()
	for b.Loop() {
		if _, ferr := auth.identify(server); ferr != nil {
			b.Fatal(ferr)
		}
	}
}
