package netproxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/netproxy/netpolicy"
)

// TestEscapeDaemonConnectionFloodIsBounded: a tree that opens connection
// after connection and keeps them open gets at most MaxConns of them
// through the proxy (the rest are reset at once and counted, with one
// event), and once its connections close a new one is served again; a
// second run's proxy answers meanwhile.
func TestEscapeDaemonConnectionFloodIsBounded(t *testing.T) {
	srv := newCountingServer(t, "ok")
	const limit, flood = 20, 60
	// Every connection here is the test process's (its pid is not found:
	// one allowance): the per-process bound is the run's.
	f := startFixture(t, Config{Policy: allow(t, "127.0.0.1:"+strconv.Itoa(srv.port())), MaxConns: limit, MaxConnsPerProcess: limit})
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

// flooder is a process of the run's namespace that opens n connections
// to addr and holds them (floodScript).
type flooder struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

// floodScript opens argv[3] connections to argv[1]:argv[2], says
// "open", and on a line of stdin says how many are still open ("held")
// and how many the proxy reset; it holds them until stdin closes.
const floodScript = `import socket, sys
ss, reset = [], 0
for i in range(int(sys.argv[3])):
    try:
        ss.append(socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10))
    except ConnectionResetError:
        reset += 1
print("open", flush=True)
sys.stdin.readline()
held = 0
for s in ss:
    s.setblocking(False)
    try:
        if s.recv(1):
            held += 1
        else:
            reset += 1
    except BlockingIOError:
        held += 1
    except ConnectionResetError:
        reset += 1
print(held, reset, flush=True)
sys.stdin.read()
`

// startFlooder starts a flooder of n connections to addr in f's
// namespace and waits until they are open.
func (f *proxyFixture) startFlooder(t testing.TB, addr string, n int) *flooder {
	t.Helper()
	host, port, _ := strings.Cut(addr, ":")
	cmd := exec.Command("nsenter", "--net=/proc/self/fd/3", "python3", "-c", floodScript, host, port, strconv.Itoa(n))
	cmd.ExtraFiles = []*os.File{f.ns}
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	fl := &flooder{cmd: cmd, in: in, out: bufio.NewReader(out)}
	t.Cleanup(func() { fl.in.Close(); fl.cmd.Wait() })
	if line, err := fl.out.ReadString('\n'); err != nil || line != "open\n" {
		t.Fatalf("flooder: %q %v", line, err)
	}
	return fl
}

// count asks the flooder how many of its connections are held and how
// many were reset.
func (fl *flooder) count(t *testing.T) (held, reset int) {
	t.Helper()
	io.WriteString(fl.in, "\n")
	line, err := fl.out.ReadString('\n')
	if _, serr := fmt.Sscan(line, &held, &reset); err != nil || serr != nil {
		t.Fatalf("flooder: %q %v %v", line, err, serr)
	}
	return held, reset
}

// waitOverLimit waits until the proxy has reset n connections.
func waitOverLimit(p *Proxy, n int) {
	deadline := time.Now().Add(10 * time.Second)
	for p.OverLimit() < n && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
}

// TestEscapeDaemonProcessConnectionFloodLeavesRoom: one process of the
// tree that opens connection after connection gets MaxConnsPerProcess of
// them (the rest reset, with one event naming it), and another process
// is still served meanwhile; a flood across processes, each within its
// own bound, still stops at the run's MaxConns.
func TestEscapeDaemonProcessConnectionFloodLeavesRoom(t *testing.T) {
	srv := newCountingServer(t, "ok")
	const total, perProc, flood = 24, 8, 30
	addr := "127.0.0.1:" + strconv.Itoa(srv.port())
	f := startFixture(t, Config{Policy: allow(t, addr), MaxConns: total, MaxConnsPerProcess: perProc})
	a := f.startFlooder(t, addr, flood)
	waitOverLimit(f.p, flood-perProc)
	if held, reset := a.count(t); held != perProc || reset != flood-perProc {
		t.Fatalf("one process's flood: %d held, %d reset; want %d, %d", held, reset, perProc, flood-perProc)
	}
	if out, _, err := f.curl(t, "--fail", "--noproxy", "*", "http://"+addr+"/"); err != nil || !strings.Contains(out, "ok") {
		t.Fatalf("another process during one process's flood: %v %q", err, out)
	}
	var limitEvents []netpolicy.Event
	for _, ev := range f.waitEvents(t, 2) {
		if strings.HasPrefix(ev.Reason, "connection limit") {
			limitEvents = append(limitEvents, ev)
		}
	}
	if len(limitEvents) != 1 || limitEvents[0].PID != a.cmd.Process.Pid {
		t.Fatalf("connection-limit events %+v, want one naming pid %d", limitEvents, a.cmd.Process.Pid)
	}
	// Four more processes, each within its bound: together past the
	// run's.
	var others []*flooder
	for range 4 {
		others = append(others, f.startFlooder(t, addr, perProc))
	}
	waitOverLimit(f.p, flood-perProc+4*perProc-(total-perProc))
	held := 0
	for _, o := range others {
		h, _ := o.count(t)
		held += h
	}
	if held != total-perProc || f.p.OpenConns() != total {
		t.Fatalf("a flood across processes: %d held besides the first's %d, %d open; want %d in all", held, perProc, f.p.OpenConns(), total)
	}
}
