package netproxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/authbench/authbench/internal/netns"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/testenv"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/netproxy/netpolicy"
)

// needKernel fails (CI) or skips the test without root and nftables.
func needKernel(t testing.TB) {
	t.Helper()
	testenv.Need(t, "root (network namespaces, nftables)", os.Geteuid() == 0)
}

// countingServer is a loopback HTTP server of the host that counts the
// TCP connections it accepts and records each request's Authorization.
type countingServer struct {
	*httptest.Server
	accepted atomic.Int64
	mu       sync.Mutex
	auth     []string
	apiKeys  []string // each request's x-api-key
}

func newCountingServer(t testing.TB, body string) *countingServer {
	t.Helper()
	s := &countingServer{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.auth = append(s.auth, r.Header.Get("Authorization"))
		s.apiKeys = append(s.apiKeys, r.Header.Get("X-Api-Key"))
		s.mu.Unlock()
		io.WriteString(w, body)
	}))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.accepted.Add(1)
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func (s *countingServer) port() int { return s.Listener.Addr().(*net.TCPAddr).Port }

func (s *countingServer) auths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.auth...)
}

// proxyFixture is a network namespace with a proxy.
type proxyFixture struct {
	ns  *os.File
	p   *Proxy
	log *Log
}

func startFixture(t testing.TB, cfg Config) *proxyFixture {
	t.Helper()
	needKernel(t)
	ns, err := netns.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Close() })
	log := &Log{}
	if cfg.Sink == nil {
		cfg.Sink = log
	}
	if cfg.Phase == "" {
		cfg.Phase = netpolicy.PhaseAgent
	}
	p, err := Start(ns, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return &proxyFixture{ns: ns, p: p, log: log}
}

func allow(t testing.TB, entries ...string) netpolicy.Policy {
	t.Helper()
	l, err := netpolicy.ParseAllowList("test", entries)
	if err != nil {
		t.Fatal(err)
	}
	return netpolicy.Policy{Mode: netpolicy.Allowlist, Allow: l, Hosts: l.Strings()}
}

// curl runs curl inside the fixture's namespace with the proxy's
// environment; it returns curl's output and pid.
func (f *proxyFixture) curl(t testing.TB, args ...string) (string, int, error) {
	t.Helper()
	cmd := exec.Command("nsenter", append([]string{"--net=/proc/self/fd/3", "curl", "-sS", "--max-time", "10"}, args...)...)
	cmd.ExtraFiles = []*os.File{f.ns}
	cmd.Env = append(f.p.Env(), "PATH=/usr/bin:/bin")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), cmd.Process.Pid, err
}

// waitEvents waits until the log holds n events.
func (f *proxyFixture) waitEvents(t testing.TB, n int) []netpolicy.Event {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		evs, _ := f.log.Events()
		if len(evs) >= n || time.Now().After(deadline) {
			return evs
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// dialIn connects from inside the namespace (a socket of the
// namespace, no mark: the redirect applies).
func (f *proxyFixture) dialIn(t testing.TB, addr string) (net.Conn, error) {
	t.Helper()
	var c net.Conn
	err := inNetNS(f.ns, f.p.host, func() error {
		var err error
		c, err = net.DialTimeout("tcp", addr, 5*time.Second)
		return err
	})
	return c, err
}

// TestProxyAllowsOnlyTheAllowedPort: an agent allowed 127.0.0.1:P1
// fetches from P1 through the proxy variables and directly; P2 through
// the variables (plain and CONNECT) and with --noproxy '*' fails, its
// server accepts nothing, and every attempt is an event naming its port
// and curl's pid.
func TestProxyAllowsOnlyTheAllowedPort(t *testing.T) {
	s1, s2 := newCountingServer(t, "one"), newCountingServer(t, "two")
	f := startFixture(t, Config{Policy: allow(t, "127.0.0.1:"+strconv.Itoa(s1.port()))})
	u1, u2 := s1.URL+"/x", s2.URL+"/x"

	type try struct {
		args    []string
		ok      bool
		via     string
		port    int
		allowed bool
	}
	tries := []try{
		{[]string{u1}, true, netpolicy.ViaHTTP, s1.port(), true},
		{[]string{"--noproxy", "*", u1}, true, netpolicy.ViaTransparent, s1.port(), true},
		{[]string{"--proxytunnel", u1}, true, netpolicy.ViaConnect, s1.port(), true},
		{[]string{u2}, false, netpolicy.ViaHTTP, s2.port(), false},
		{[]string{"--noproxy", "*", u2}, false, netpolicy.ViaTransparent, s2.port(), false},
		{[]string{"--proxytunnel", u2}, false, netpolicy.ViaConnect, s2.port(), false},
	}
	for i, tr := range tries {
		out, pid, err := f.curl(t, append([]string{"--fail"}, tr.args...)...)
		if tr.ok != (err == nil) || (tr.ok && out != "one") {
			t.Fatalf("curl %v: ok=%v out=%q err=%v", tr.args, err == nil, out, err)
		}
		evs := f.waitEvents(t, i+1)
		if len(evs) != i+1 {
			t.Fatalf("after curl %v: %d events, want %d: %+v", tr.args, len(evs), i+1, evs)
		}
		ev := evs[i]
		if ev.Via != tr.via || ev.Port != tr.port || ev.Host != "127.0.0.1" || ev.Allowed != tr.allowed || ev.Phase != netpolicy.PhaseAgent || ev.Op != netpolicy.OpConnect {
			t.Errorf("curl %v: event %+v", tr.args, ev)
		}
		if ev.PID != pid {
			t.Errorf("curl %v: event pid %d, curl's %d", tr.args, ev.PID, pid)
		}
		if tr.allowed && (ev.BytesIn == 0 || ev.BytesOut == 0) {
			t.Errorf("curl %v: allowed event counts no bytes: %+v", tr.args, ev)
		}
		if !tr.allowed && !strings.Contains(ev.Reason, "not allowed in the agent phase") {
			t.Errorf("curl %v: reason %q", tr.args, ev.Reason)
		}
		if !tr.ok && tr.via == netpolicy.ViaHTTP && !strings.Contains(out, "403") {
			t.Errorf("curl %v: %q does not show the proxy's 403", tr.args, out)
		}
		if !tr.ok && tr.via == netpolicy.ViaTransparent && !strings.Contains(out, "curl: (7)") {
			t.Errorf("curl %v: %q: a refused direct connection is not refused at connect()", tr.args, out)
		}
	}
	if n := s2.accepted.Load(); n != 0 {
		t.Errorf("the refused server accepted %d connections", n)
	}
	if n := s1.accepted.Load(); n != 3 {
		t.Errorf("the allowed server accepted %d connections, want 3", n)
	}
}

// TestProxyInjectsTheModelKey: requests to the model endpoint leave the
// proxy with the real key whatever the client sent (through the
// variables or directly); other hosts never get it.
func TestProxyInjectsTheModelKey(t *testing.T) {
	model, other := newCountingServer(t, "{}"), newCountingServer(t, "x")
	m := &netpolicy.ModelEndpoint{URL: model.URL + "/v1", Key: "sk-real-123"}
	pol, err := netpolicy.ResolvePhase(netpolicy.PhaseInput{Model: m, Extra: allow(t, "127.0.0.1:"+strconv.Itoa(other.port())).Allow})
	if err != nil {
		t.Fatal(err)
	}
	f := startFixture(t, Config{Policy: pol, Model: m})
	for _, args := range [][]string{
		{"-H", "Authorization: Bearer " + netpolicy.Placeholder, model.URL + "/v1/chat/completions"},
		{"--noproxy", "*", "-H", "Authorization: Bearer " + netpolicy.Placeholder, model.URL + "/v1/chat/completions"},
		{model.URL + "/v1/models"},
		{"-H", "Authorization: Bearer " + netpolicy.Placeholder, other.URL},
	} {
		if out, _, err := f.curl(t, append([]string{"--fail"}, args...)...); err != nil {
			t.Fatalf("curl %v: %v %s", args, err, out)
		}
	}
	for _, a := range model.auths() {
		if a != "Bearer sk-real-123" {
			t.Errorf("the model server saw Authorization %q", a)
		}
	}
	if got := other.auths(); len(got) != 1 || got[0] != "Bearer "+netpolicy.Placeholder {
		t.Errorf("another host saw %q", got)
	}
	evs := f.waitEvents(t, 4)
	for i, ev := range evs {
		if ev.KeyInjected != (i < 3) {
			t.Errorf("event %d key_injected=%v: %+v", i, ev.KeyInjected, ev)
		}
	}
	if len(model.auths()) != 3 {
		t.Errorf("model server saw %d requests", len(model.auths()))
	}
}

// listenIn listens on loopback inside the fixture's namespace: a service
// of the run (a compose sidecar).
func (f *proxyFixture) listenIn(t testing.TB) net.Listener {
	t.Helper()
	var l net.Listener
	if err := inNetNS(f.ns, f.p.host, func() error {
		var err error
		l, err = net.Listen("tcp4", "127.0.0.1:0")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// TestProxyNoNetworkKeepsLocalServices: in a no-network phase a service
// of the run's own namespace is reached directly and through the proxy
// (localhost), and the host's loopback server is not.
func TestProxyNoNetworkKeepsLocalServices(t *testing.T) {
	host := newCountingServer(t, "host")
	f := startFixture(t, Config{Policy: netpolicy.Policy{Mode: netpolicy.NoNetwork}})
	l := f.listenIn(t)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "local") })}
	go srv.Serve(l)
	defer srv.Close()
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	for _, args := range [][]string{{"http://127.0.0.1:" + port + "/"}, {"--noproxy", "*", "http://localhost:" + port + "/"}, {"http://localhost:" + port + "/"}} {
		out, _, err := f.curl(t, append([]string{"--fail"}, args...)...)
		if err != nil || out != "local" {
			t.Fatalf("curl %v: %q %v", args, out, err)
		}
	}
	if out, _, err := f.curl(t, "--fail", host.URL); err == nil {
		t.Fatalf("no-network phase reached the host's loopback server: %q", out)
	}
	if out, _, err := f.curl(t, "--fail", "--max-time", "2", "http://127.0.0.1:"+strconv.Itoa(f.p.Port())+"/"); err == nil {
		t.Fatalf("a request to the proxy itself succeeded: %q", out)
	}
	// Nothing listens, in the run or on the host, and nothing allows
	// it: refused at connect(), as without a proxy (a readiness probe
	// is not fooled), and recorded as failed, not refused by the policy.
	if c, err := f.dialIn(t, "127.0.0.1:1"); !errors.Is(err, unix.ECONNREFUSED) {
		t.Errorf("connect to a closed loopback port: %v, want ECONNREFUSED", err)
		if c != nil {
			c.Close()
		}
	}
	if c, err := f.dialIn(t, "[::1]:1"); !errors.Is(err, unix.ECONNREFUSED) {
		t.Errorf("connect to a closed IPv6 loopback port: %v, want ECONNREFUSED", err)
		if c != nil {
			c.Close()
		}
	}
	evs := f.waitEvents(t, 7)
	closed := map[string]bool{}
	for _, e := range evs {
		if e.Port == 1 && e.Allowed && e.Local && e.Reason == "" && strings.Contains(e.Error, "connection refused: nothing listens on") {
			closed[e.Host] = true
		}
	}
	if len(evs) != 7 || !closed["127.0.0.1"] || !closed["::1"] {
		t.Errorf("events of the closed ports: %+v", evs)
	}
	evs = evs[:4] // the three local requests and the refused one come first (each curl ends before the next)
	if len(evs) < 4 {
		t.Fatalf("events %+v", evs)
	}
	for _, ev := range evs[:3] {
		if !ev.Local || !ev.Allowed || ev.Addr == "" {
			t.Errorf("local service event %+v", ev)
		}
	}
	if ev := evs[3]; ev.Allowed || ev.Port != host.port() || !strings.Contains(ev.Reason, "network_mode no-network") {
		t.Errorf("refused event %+v", ev)
	}
	if n := host.accepted.Load(); n != 0 {
		t.Errorf("host server accepted %d", n)
	}
}

// TestProxyFailsAtOnce: what the proxy cannot carry fails at once with a
// clear error: an allowed host that does not resolve (502 naming it), a
// request that is not a proxy request (400), a TCP connection to an
// address outside the namespace (no route), UDP out (no route).
func TestProxyFailsAtOnce(t *testing.T) {
	f := startFixture(t, Config{Policy: allow(t, "no-such-host.invalid:80")})
	start := time.Now()
	out, _, err := f.curl(t, "--fail-with-body", "http://no-such-host.invalid/")
	if err == nil || !strings.Contains(out, "resolve") || !strings.Contains(out, "no-such-host.invalid:80") {
		t.Errorf("unresolvable allowed host: %q %v", out, err)
	}
	evs := f.waitEvents(t, 1)
	if len(evs) != 1 || !evs[0].Allowed || !strings.HasPrefix(evs[0].Error, "resolve:") {
		t.Errorf("events %+v", evs)
	}
	c, err := f.dialIn(t, "127.0.0.1:"+strconv.Itoa(f.p.Port()))
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(c, "GET /relative HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, _ := io.ReadAll(c)
	c.Close()
	if !strings.HasPrefix(string(resp), "HTTP/1.1 400") || !strings.Contains(string(resp), "absolute http:// URI") {
		t.Errorf("non-proxy request: %q", resp)
	}
	if _, err := f.dialIn(t, "192.0.2.1:80"); !errors.Is(err, unix.ENETUNREACH) {
		t.Errorf("TCP to an outside address: %v, want ENETUNREACH", err)
	}
	err = inNetNS(f.ns, f.p.host, func() error {
		c, err := net.Dial("udp", "192.0.2.1:53")
		if err == nil {
			_, err = c.Write([]byte("x"))
			c.Close()
		}
		return err
	})
	if !errors.Is(err, unix.ENETUNREACH) {
		t.Errorf("UDP out: %v, want ENETUNREACH", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("failing took %v", d)
	}
}

// TestProxyIdleTimeout: a connection that never closes and carries
// nothing is closed after the idle timeout, on both sides.
func TestProxyIdleTimeout(t *testing.T) {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	serverSide := make(chan net.Conn, 1)
	go func() {
		c, err := l.Accept()
		if err == nil {
			serverSide <- c
		}
	}()
	f := startFixture(t, Config{Policy: allow(t, l.Addr().String()), IdleTimeout: 300 * time.Millisecond})
	c, err := f.dialIn(t, l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sc := <-serverSide
	defer sc.Close()
	start := time.Now()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Fatalf("client read: %v, want EOF from the proxy", err)
	}
	sc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := sc.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Fatalf("server read: %v, want EOF", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("closed after %v", d)
	}
	evs := f.waitEvents(t, 1)
	if len(evs) != 1 || !evs[0].IdleClosed || evs[0].DurationMS < 250 {
		t.Errorf("events %+v", evs)
	}
}

// TestProxyGigabyteStaysBounded: 1 GiB each way through a transparent
// connection is counted exactly and the proxy's heap does not grow with
// it.
func TestProxyGigabyteStaysBounded(t *testing.T) {
	const total = 1 << 30
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		done := make(chan struct{})
		go func() { io.Copy(io.Discard, c); close(done) }()
		io.CopyN(c, zeroReader{}, total)
		c.(*net.TCPConn).CloseWrite()
		<-done
	}()
	f := startFixture(t, Config{Policy: allow(t, l.Addr().String())})
	c, err := f.dialIn(t, l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		io.CopyN(c, zeroReader{}, total)
		c.(*net.TCPConn).CloseWrite()
	}()
	got, _ := io.Copy(io.Discard, c)
	wg.Wait()
	c.Close()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if got != total {
		t.Fatalf("received %d bytes, want %d", got, total)
	}
	evs := f.waitEvents(t, 1)
	if len(evs) != 1 || evs[0].BytesIn != total || evs[0].BytesOut != total {
		t.Fatalf("events %+v", evs)
	}
	if grew := int64(after.HeapInuse) - int64(before.HeapInuse); grew > 16<<20 {
		t.Errorf("heap grew by %d bytes carrying 2 GiB", grew)
	}
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestProxyPhaseSwitch: the verifier phase's policy applies to new
// connections once set, and events carry the phase.
func TestProxyPhaseSwitch(t *testing.T) {
	s := newCountingServer(t, "ok")
	f := startFixture(t, Config{Policy: allow(t, s.Listener.Addr().String())})
	if _, _, err := f.curl(t, "--fail", s.URL); err != nil {
		t.Fatal(err)
	}
	f.p.SetPhase(netpolicy.PhaseVerifier, netpolicy.Policy{Mode: netpolicy.NoNetwork})
	if _, _, err := f.curl(t, "--fail", s.URL); err == nil {
		t.Fatal("the verifier's no-network phase reached the server")
	}
	evs := f.waitEvents(t, 2)
	if len(evs) != 2 || evs[0].Phase != netpolicy.PhaseAgent || !evs[0].Allowed || evs[1].Phase != netpolicy.PhaseVerifier || evs[1].Allowed {
		t.Errorf("events %+v", evs)
	}
}

// TestProxyEnvAndHosts: the variables point at the proxy and NO_PROXY
// names the run's services; each allowed name gets its stand-in address,
// and a transparent connection there is the name's.
func TestProxyEnvAndHosts(t *testing.T) {
	f := startFixture(t, Config{Policy: allow(t, "model.example:8080"), Names: []string{"model.example", "Model.Example.", "localhost"},
		NoProxy: []string{"db", "cache"}})
	env := strings.Join(f.p.Env(), "\n")
	u := fmt.Sprintf("http://127.0.0.1:%d", f.p.Port())
	for _, want := range []string{"HTTP_PROXY=" + u, "https_proxy=" + u, "ALL_PROXY=" + u, "NO_PROXY=db,cache", "no_proxy=db,cache"} {
		if !strings.Contains(env, want+"\n") && !strings.HasSuffix(env, want) {
			t.Errorf("Env() lacks %s:\n%s", want, env)
		}
	}
	if got, want := f.p.HostsEntries(), "127.88.0.1\tmodel.example\n"; got != want {
		t.Fatalf("HostsEntries() = %q, want %q", got, want)
	}
	// The name does not resolve here: the proxy resets the connection,
	// maybe before the dial returns.
	if c, err := f.dialIn(t, "127.88.0.1:8080"); err == nil {
		c.Read(make([]byte, 1))
		c.Close()
	}
	evs := f.waitEvents(t, 1)
	if len(evs) != 1 || evs[0].Host != "model.example" || evs[0].Port != 8080 || !evs[0].Allowed || evs[0].Via != netpolicy.ViaTransparent {
		t.Errorf("events %+v", evs)
	}
}

var _ = context.Background
var _ = url.Parse

// TestProxyNetworkOrigins: each event names its client's origin as
// Config.Origin tells it from the connecting pid (curl's, found while it
// waits even when the server closes at once); an attempt at the run's
// loopback where nothing listens (in the run or on the host) failed, and
// is no refusal; where only the host listens, it is refused by the
// policy.
func TestProxyNetworkOrigins(t *testing.T) {
	host := newCountingServer(t, "host")
	var mu sync.Mutex
	asked := map[int]netpolicy.Phase{}
	origin := func(pid int, ph netpolicy.Phase) string {
		mu.Lock()
		defer mu.Unlock()
		asked[pid] = ph
		if pid != 0 {
			return netpolicy.ServiceOrigin("db")
		}
		return netpolicy.OriginUnknown
	}
	f := startFixture(t, Config{Phase: netpolicy.PhaseSetup, Policy: netpolicy.Policy{Mode: netpolicy.NoNetwork}, Origin: origin})
	l := f.listenIn(t)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + free.Addr().String() + "/"
	free.Close()
	direct := func(u string) int {
		_, pid, err := f.curl(t, "--noproxy", "*", u)
		if err == nil {
			t.Errorf("curl %s succeeded", u)
		}
		return pid
	}
	pids := []int{direct("http://" + l.Addr().String() + "/"), direct(closed)}
	f.p.SetPhase(netpolicy.PhaseAgent, netpolicy.Policy{Mode: netpolicy.NoNetwork})
	pids = append(pids, direct(host.URL+"/"))
	evs := f.waitEvents(t, 3)
	if len(evs) != 3 {
		t.Fatalf("events %+v", evs)
	}
	db := netpolicy.ServiceOrigin("db")
	for i, e := range evs {
		if e.PID != pids[i] || e.Origin != db || e.Agents() {
			t.Errorf("event %d: %+v, want pid %d origin %s", i, e, pids[i], db)
		}
	}
	if e := evs[0]; e.Phase != netpolicy.PhaseSetup || !e.Allowed || !e.Local || e.Error != "" {
		t.Errorf("service's connection %+v", e)
	}
	if e := evs[1]; !e.Allowed || !e.Local || !strings.Contains(e.Error, "connection refused") || e.Reason != "" {
		t.Errorf("service's attempt at a closed port %+v", e)
	}
	if e := evs[2]; e.Phase != netpolicy.PhaseAgent || e.Allowed || !strings.Contains(e.Reason, "not allowed in the agent phase") {
		t.Errorf("service's attempt at the host's server %+v", e)
	}
	if host.accepted.Load() != 0 {
		t.Error("the host's server accepted a connection")
	}
	mu.Lock()
	defer mu.Unlock()
	if asked[pids[0]] != netpolicy.PhaseSetup || asked[pids[2]] != netpolicy.PhaseAgent {
		t.Errorf("Origin asked %v, want curl's pids %v in their phases", asked, pids)
	}
}

// TestProxyCloseLogsNoError: closing the proxy ends its netfilter queue
// reader quietly (it once logged "netlink receive: use of closed file"
// at the end of every run).
func TestProxyCloseLogsNoError(t *testing.T) {
	core, logs := observer.New(zap.ErrorLevel)
	f := startFixture(t, Config{Policy: allow(t, "127.0.0.1:9"), Log: zap.New(core)})
	f.curl(t, "--noproxy", "*", "http://127.0.0.1:9/")
	f.p.Close()
	if n := logs.Len(); n != 0 {
		t.Fatalf("closing logged %d error(s): %v", n, logs.All()[0].ContextMap())
	}
}
