package netproxy

import (
	"crypto/tls"
	"net"
	"testing"
)

// clientHello is the first flight of a TLS client naming sni.
func clientHello(t *testing.T, sni string) []byte {
	t.Helper()
	c, s := net.Pipe()
	defer s.Close()
	go func() {
		tc := tls.Client(c, &tls.Config{ServerName: sni, InsecureSkipVerify: sni == ""})
		tc.Handshake()
		c.Close()
	}()
	buf := make([]byte, 4096)
	n, err := s.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	return buf[:n]
}

func TestSniffSNI(t *testing.T) {
	hello := clientHello(t, "API.Example.com")
	if got := sniffSNI(hello); got != "api.example.com" {
		t.Errorf("sniffSNI(hello) = %q", got)
	}
	if got := sniffSNI(clientHello(t, "")); got != "" {
		t.Errorf("sniffSNI(hello without a name) = %q", got)
	}
	for n := 0; n < len(hello); n += 7 {
		sniffSNI(hello[:n]) // cut anywhere: no panic
	}
	for _, b := range [][]byte{nil, []byte("GET / HTTP/1.1\r\n"), {22, 3, 1, 0, 5, 2}} {
		if got := sniffSNI(b); got != "" {
			t.Errorf("sniffSNI(%q) = %q", b, got)
		}
	}
}
