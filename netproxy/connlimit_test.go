package netproxy

import (
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestEscapeDaemonConnectionFloodIsBounded: a tree that opens connection
// after connection and keeps them open gets at most MaxConns of them
// through the proxy (the rest are reset at once and counted, with one
// event), and once its connections close a new one is served again; a
// second run's proxy answers meanwhile.
func TestEscapeDaemonConnectionFloodIsBounded(t *testing.T) {
	srv := newCountingServer(t, "ok")
	const limit, flood = 20, 60
	f := startFixture(t, Config{Policy: allow(t, "127.0.0.1:"+strconv.Itoa(srv.port())), MaxConns: limit})
	other := startFixture(t, Config{Policy: allow(t, "127.0.0.1:"+strconv.Itoa(srv.port()))})
	addr := "127.0.0.1:" + strconv.Itoa(srv.port())
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	reset := 0
	for i := 0; i < flood; i++ {
		c, err := f.dialIn(t, addr)
		if err != nil {
			if !strings.Contains(err.Error(), "connection reset") {
				t.Fatalf("dial %d: %v", i, err)
			}
			reset++ // reset before connect() returned
			continue
		}
		held = append(held, c)
		// A connection the proxy refused is reset: a read fails at once
		// (not a timeout) and gets nothing.
		c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		var b [1]byte
		if _, err := c.Read(b[:]); err != nil && !isTimeout(err) {
			reset++
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for f.p.OverLimit() < flood-limit && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := f.p.OpenConns(); n > limit {
		t.Fatalf("%d connections open through the proxy, limit %d", n, limit)
	}
	if got := f.p.OverLimit(); got != flood-limit || reset != flood-limit {
		t.Fatalf("over the limit: %d counted, %d reset; want %d", got, reset, flood-limit)
	}
	start := time.Now()
	if out, _, err := other.curl(t, "--fail", "--noproxy", "*", "http://"+addr+"/"); err != nil || !strings.Contains(out, "ok") || time.Since(start) > 5*time.Second {
		t.Fatalf("another run's proxy during the flood: %v %q after %v", err, out, time.Since(start))
	}
	for _, c := range held {
		c.Close()
	}
	held = nil
	deadline = time.Now().Add(5 * time.Second)
	for f.p.OpenConns() > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	c, err := f.dialIn(t, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "GET / HTTP/1.0\r\nHost: x\r\n\r\n")
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if body, _ := io.ReadAll(c); !strings.Contains(string(body), "ok") {
		t.Fatalf("after the flood a connection got %q", body)
	}
	limitEvents := 0
	for _, ev := range f.waitEvents(t, 1) {
		if strings.HasPrefix(ev.Reason, "connection limit") {
			limitEvents++
		}
	}
	if limitEvents != 1 {
		t.Fatalf("%d connection-limit events, want 1 for the burst", limitEvents)
	}
}
