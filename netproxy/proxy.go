package netproxy

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"go.uber.org/zap"
	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/netproxy/netpolicy"
	"github.com/authbench/authbench/policy"
)

// Defaults of Config.
const (
	DefaultIdleTimeout = 5 * time.Minute
	DefaultDialTimeout = 10 * time.Second
	// DefaultMaxConns bounds a proxy's open client connections (one proxy
	// serves one run's phase): a connection flood from the tree costs
	// the daemon at most this many descriptors (twice, with upstreams).
	DefaultMaxConns = 512
	// DefaultMaxConnsPerProcess bounds one process's share of them
	// (Config.MaxConnsPerProcess: a quarter of MaxConns unless set).
	DefaultMaxConnsPerProcess = DefaultMaxConns / 4
)

// mappedPrefix holds the loopback addresses that stand for allowed names
// in a run's /etc/hosts (HostsEntries): a transparent connection to one
// goes to its name.
var mappedPrefix = netip.MustParsePrefix("127.88.0.0/16")

// Config configures a run's proxy.
type Config struct {
	// Phase and Policy are the first phase's (SetPhase changes them).
	Phase  netpolicy.Phase
	Policy netpolicy.Policy
	// Names are the allowed names (of every phase) that transparent
	// clients reach through /etc/hosts (HostsEntries).
	Names []string
	// NoProxy are names clients should reach directly (the run's
	// compose services): NO_PROXY. Direct connections are still
	// mediated (redirected to the proxy, which passes a connection to a
	// service of the run's own namespace).
	NoProxy []string
	// Services are the run's own services (compose sidecars) to be
	// reached by name through stand-in addresses too, so that the
	// proxy knows which service a connection is for and the phase's
	// Policy.Services decides (a run whose agent a policy's network
	// axis governs). A connection to a service so named goes to the
	// port in the run's namespace when allowed.
	Services []string
	// Model is the endpoint whose key the proxy injects (nil: none).
	Model *netpolicy.ModelEndpoint
	// Sink receives every connection attempt.
	Sink Sink
	// Origin, when set, tells whose process pid (0: not found) is, in
	// phase ph: an event's Origin (netpolicy.OriginAgent,
	// netpolicy.ServiceOrigin, ...). It is called while the connecting
	// process waits for its answer, so that it is still there.
	Origin func(pid int, ph netpolicy.Phase) string
	// IdleTimeout closes a connection idle in both directions this long
	// (DefaultIdleTimeout); DialTimeout bounds resolving and connecting
	// (DefaultDialTimeout).
	IdleTimeout, DialTimeout time.Duration
	// MaxConns bounds the open client connections (DefaultMaxConns); a
	// connection beyond it is reset at once and counted (OverLimit),
	// the first of each burst with an event.
	MaxConns int
	// MaxConnsPerProcess bounds the open client connections of one
	// process of the tree (a quarter of MaxConns, at least 1, unless
	// set; at most MaxConns), so that one process's flood leaves room for
	// the others; connections whose process is not found share one such
	// allowance. A connection beyond it is reset before it is served and
	// counted in OverLimit, the first of each process's burst with an
	// event.
	MaxConnsPerProcess int
	// Resolver resolves names on the daemon's host (nil: net's
	// default).
	Resolver *net.Resolver
	Log      *zap.Logger
}

// Proxy is a run's egress proxy: it listens on loopback inside the run's
// network namespace (sockets made on a thread that joined it) and dials
// out from the host's, so the container needs no route; a redirect rule
// in the namespace sends every other TCP connection to it too.
type Proxy struct {
	cfg      Config
	ns, host *os.File
	port     int
	// mark is on the proxy's own sockets in the namespace; redirect on
	// the SYNs the queue sends to the proxy.
	mark, redirect uint32
	queue          *synQueue
	lns            []net.Listener
	addrs          []netip.AddrPort // the listeners' own addresses
	pids           *pidFinder
	hostPids       *pidFinder // the host's namespace: its listeners
	names          map[netip.Addr]string
	services       map[string]bool
	hosts          []hostEntry
	model          *modelTarget

	mu     sync.RWMutex
	phase  netpolicy.Phase
	policy netpolicy.Policy

	// synMu guards synClients: the client of each connection decideSYN
	// sent to the proxy, found while it waited in connect() (by the
	// time the proxy accepts, a client that closed at once is gone).
	synMu      sync.Mutex
	synClients map[netip.AddrPort]client

	connMu sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	// overLimit counts connections reset over MaxConns or
	// MaxConnsPerProcess; inBurst is set from the first over MaxConns
	// until a connection is accepted again, procBurst[pid] likewise for
	// a process.
	overLimit int
	inBurst   bool
	// byProc counts the open connections of each process (0: not found).
	byProc    map[int]int
	procBurst map[int]bool
	wg        sync.WaitGroup
}

type hostEntry struct {
	addr netip.Addr
	name string
}

type modelTarget struct {
	host  string
	port  int
	plain bool
	key   string
	// prefix is the path below which the key is injected
	// (netpolicy.KeyApplies).
	prefix string
}

// Start starts a proxy for the network namespace ns (held open by the
// caller for the proxy's life).
func Start(ns *os.File, cfg Config) (*Proxy, error) {
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.DialTimeout <= 0 {
		cfg.DialTimeout = DefaultDialTimeout
	}
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = DefaultMaxConns
	}
	if cfg.MaxConnsPerProcess <= 0 {
		cfg.MaxConnsPerProcess = max(1, cfg.MaxConns/4)
	}
	cfg.MaxConnsPerProcess = min(cfg.MaxConnsPerProcess, cfg.MaxConns)
	if cfg.Log == nil {
		cfg.Log = zap.NewNop()
	}
	if cfg.Resolver == nil {
		cfg.Resolver = net.DefaultResolver
	}
	p := &Proxy{cfg: cfg, ns: ns, phase: cfg.Phase, policy: cfg.Policy,
		names: map[netip.Addr]string{}, services: map[string]bool{}, conns: map[net.Conn]struct{}{}, byProc: map[int]int{}, procBurst: map[int]bool{}, synClients: map[netip.AddrPort]client{}}
	if cfg.Model != nil {
		host, port, plain, err := cfg.Model.Target()
		if err != nil {
			return nil, err
		}
		prefix, err := cfg.Model.KeyPrefix()
		if err != nil {
			return nil, err
		}
		p.model = &modelTarget{host: host, port: port, plain: plain, key: cfg.Model.Key, prefix: prefix}
	}
	if err := p.mapNames(slices.Concat(cfg.Names, cfg.Services)); err != nil {
		return nil, err
	}
	for _, s := range cfg.Services {
		if h, err := policy.NormaliseHost(s); err == nil {
			p.services[h] = true
		}
	}
	var marks [8]byte
	if _, err := rand.Read(marks[:]); err != nil {
		return nil, err
	}
	p.mark = binary.NativeEndian.Uint32(marks[:4]) | 1
	p.redirect = binary.NativeEndian.Uint32(marks[4:])&^1 | 2
	host, err := os.Open("/proc/self/ns/net")
	if err != nil {
		return nil, err
	}
	p.host = host
	if err := inNetNS(ns, host, p.listen); err != nil {
		p.Close()
		return nil, err
	}
	if p.pids == nil {
		p.Close()
		return nil, errors.New("proxy: no sock_diag socket in the run's namespace")
	}
	if err := p.pids.record(); err != nil {
		p.cfg.Log.Warn("proxy: connecting processes are found by scanning /proc", zap.Error(err))
	}
	if err := inNetNS(host, host, func() (err error) { p.hostPids, err = newPIDFinder(); return err }); err != nil {
		p.Close()
		return nil, fmt.Errorf("proxy: host sock_diag socket: %w", err)
	}
	if p.queue, err = openSYNQueue(ns); err != nil {
		p.Close()
		return nil, err
	}
	if err := installRedirect(ns, uint16(p.port), p.mark, p.redirect); err != nil {
		p.Close()
		return nil, err
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		if err := p.queue.serve(p.redirect, p.decideSYN); err != nil {
			p.cfg.Log.Error("proxy: netfilter queue", zap.Error(err))
		}
	}()
	for _, l := range p.lns {
		p.wg.Add(1)
		go p.accept(l)
	}
	return p, nil
}

// mapNames gives each name an address of mappedPrefix.
func (p *Proxy) mapNames(names []string) error {
	next := mappedPrefix.Addr().Next()
	seen := map[string]bool{}
	for _, n := range names {
		h, err := policy.NormaliseHost(n)
		if err != nil {
			return fmt.Errorf("proxy name %q: %w", n, err)
		}
		if seen[h] || h == "localhost" {
			continue
		}
		if _, err := netip.ParseAddr(h); err == nil {
			continue
		}
		if !mappedPrefix.Contains(next) {
			return fmt.Errorf("more than %d allowed names", 1<<16-2)
		}
		seen[h] = true
		p.names[next] = h
		p.hosts = append(p.hosts, hostEntry{addr: next, name: h})
		next = next.Next()
	}
	return nil
}

// listen runs inside the namespace: the listeners (127.0.0.1 and ::1,
// one port) and the tables of the pid finder.
func (p *Proxy) listen() error {
	l4, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("proxy listener: %w", err)
	}
	p.lns = append(p.lns, l4)
	p.port = l4.Addr().(*net.TCPAddr).Port
	p.addrs = append(p.addrs, netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(p.port)))
	if l6, err := net.Listen("tcp6", net.JoinHostPort("::1", strconv.Itoa(p.port))); err == nil {
		p.lns = append(p.lns, l6)
		p.addrs = append(p.addrs, netip.AddrPortFrom(netip.IPv6Loopback(), uint16(p.port)))
	} else {
		p.cfg.Log.Info("proxy: no IPv6 loopback listener", zap.Error(err))
	}
	if p.pids, err = newPIDFinder(); err != nil {
		return fmt.Errorf("proxy: %w", err)
	}
	return nil
}

// Port is the proxy's port on the namespace's loopback.
func (p *Proxy) Port() int { return p.port }

// URL is the proxy's URL inside the namespace.
func (p *Proxy) URL() string { return "http://127.0.0.1:" + strconv.Itoa(p.port) }

// Env is the environment a mediated phase's processes get: the proxy
// variables in both cases (curl reads only the lower-case http_proxy),
// NO_PROXY, and, with a model endpoint, nothing of its key.
func (p *Proxy) Env() []string {
	u := p.URL()
	var env []string
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"} {
		env = append(env, k+"="+u)
	}
	for _, k := range []string{"http_proxy", "https_proxy", "all_proxy"} {
		env = append(env, k+"="+u)
	}
	np := ""
	for i, n := range p.cfg.NoProxy {
		if i > 0 {
			np += ","
		}
		np += n
	}
	return append(env, "NO_PROXY="+np, "no_proxy="+np)
}

// HostsEntries are the /etc/hosts lines that map each allowed name to
// its stand-in address: a client that ignores the proxy variables
// connects there, and the redirect brings it to the proxy, which knows
// the name.
func (p *Proxy) HostsEntries() string {
	var s string
	for _, h := range p.hosts {
		s += h.addr.String() + "\t" + h.name + "\n"
	}
	return s
}

// SetPhase switches the policy (between the agent and the verifiers);
// connections already open keep going.
func (p *Proxy) SetPhase(ph netpolicy.Phase, pol netpolicy.Policy) {
	p.mu.Lock()
	p.phase, p.policy = ph, pol
	p.mu.Unlock()
}

func (p *Proxy) current() (netpolicy.Phase, netpolicy.Policy) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.phase, p.policy
}

// Close stops the proxy: no new connection, every open one closed, its
// goroutines ended (their events sent). The redirect rule stays in the
// namespace, which the run discards: nothing there reaches anything then.
func (p *Proxy) Close() error {
	p.connMu.Lock()
	p.closed = true
	for _, l := range p.lns {
		l.Close()
	}
	for c := range p.conns {
		c.Close()
	}
	if p.queue != nil {
		p.queue.close()
	}
	p.connMu.Unlock()
	p.wg.Wait()
	if p.pids != nil {
		p.pids.close()
	}
	if p.hostPids != nil {
		p.hostPids.close()
	}
	if p.host != nil {
		p.host.Close()
	}
	return nil
}

// track registers c for Close; false once closed, or when MaxConns
// connections are open (c is then counted in OverLimit, and the first
// refusal since the last accepted connection is an event).
func (p *Proxy) track(c net.Conn) bool {
	p.connMu.Lock()
	defer p.connMu.Unlock()
	if p.closed {
		return false
	}
	if len(p.conns) >= p.cfg.MaxConns {
		p.overLimit++
		if !p.inBurst {
			p.inBurst = true
			p.limitEvent(client{}, fmt.Sprintf("connection limit: %d connections of this run are open; this and the next ones are reset until one closes (counted, not each recorded)", p.cfg.MaxConns))
		}
		return false
	}
	p.inBurst = false
	p.conns[c] = struct{}{}
	return true
}

// limitEvent reports the first connection refused over a bound, with
// why: who is the refused process (zero: the run's bound, no process).
func (p *Proxy) limitEvent(who client, reason string) {
	if p.cfg.Sink == nil {
		return
	}
	ph, _ := p.current()
	p.cfg.Sink.Event(netpolicy.Event{TS: time.Now().UnixNano(), Op: netpolicy.OpConnect, Phase: ph, Via: netpolicy.ViaTransparent,
		PID: who.pid, Origin: who.origin, Reason: reason})
}

// OverLimit is how many connections were reset over MaxConns.
func (p *Proxy) OverLimit() int {
	p.connMu.Lock()
	defer p.connMu.Unlock()
	return p.overLimit
}

// OpenConns is how many client connections are open.
func (p *Proxy) OpenConns() int {
	p.connMu.Lock()
	defer p.connMu.Unlock()
	return len(p.conns)
}

func (p *Proxy) untrack(c net.Conn) {
	p.connMu.Lock()
	delete(p.conns, c)
	p.connMu.Unlock()
}

// admitProcess counts a tracked connection for its process who (pid 0:
// not found); false when that process already holds MaxConnsPerProcess
// (the connection is then counted in OverLimit, and the first refusal
// of the process since its last admitted connection is an event).
func (p *Proxy) admitProcess(who client) bool {
	p.connMu.Lock()
	defer p.connMu.Unlock()
	if p.byProc[who.pid] >= p.cfg.MaxConnsPerProcess {
		p.overLimit++
		if !p.procBurst[who.pid] {
			p.procBurst[who.pid] = true
			p.limitEvent(who, fmt.Sprintf("connection limit: this process holds %d connections of this run (the per-process bound); this and its next ones are reset until one closes (counted, not each recorded)", p.cfg.MaxConnsPerProcess))
		}
		return false
	}
	delete(p.procBurst, who.pid)
	p.byProc[who.pid]++
	return true
}

// releaseProcess ends the count admitProcess made for pid.
func (p *Proxy) releaseProcess(pid int) {
	p.connMu.Lock()
	defer p.connMu.Unlock()
	if p.byProc[pid]--; p.byProc[pid] <= 0 {
		delete(p.byProc, pid)
	}
}

func (p *Proxy) accept(l net.Listener) {
	defer p.wg.Done()
	for {
		c, err := l.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			p.cfg.Log.Warn("proxy accept", zap.Error(err))
			time.Sleep(10 * time.Millisecond)
			continue
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			if !p.track(c) {
				if tc, ok := c.(*net.TCPConn); ok {
					tc.SetLinger(0) // a reset: the client fails at once
				}
				c.Close()
				return
			}
			defer p.untrack(c)
			defer c.Close()
			p.serve(c.(*net.TCPConn))
		}()
	}
}

// session is one accepted client connection.
type session struct {
	p     *Proxy
	c     *net.TCPConn
	start time.Time
	pid   chan client
	who   client
	// answer, when set, is what a proxy client whose attempt failed is
	// told in place of the event's reason or error (see open).
	answer string
}

// client is a connecting process and its origin.
type client struct {
	pid    int
	origin string
	dst    netip.AddrPort // where it connected (noteSYNClient)
}

// clientPID is the connecting process and its origin, looked up once,
// concurrently with the work of the first attempt: call it before
// answering the client, which may exit as soon as it has its answer (a
// process's socket is found only while it is open).
func (s *session) clientPID() client {
	if s.pid != nil {
		s.who = <-s.pid
		s.pid = nil
	}
	return s.who
}

// origin is whose process pid is in phase ph ("" without
// Config.Origin).
func (p *Proxy) origin(pid int, ph netpolicy.Phase) string {
	if p.cfg.Origin == nil {
		return ""
	}
	return p.cfg.Origin(pid, ph)
}

func (p *Proxy) serve(c *net.TCPConn) {
	s := &session{p: p, c: c, start: time.Now(), pid: make(chan client, 1)}
	dst, err := originalDst(c)
	if err != nil {
		p.cfg.Log.Warn("proxy", zap.Error(err))
		return
	}
	go func() {
		a, err := netip.ParseAddrPort(c.RemoteAddr().String())
		if err == nil {
			if who, ok := p.takeSYNClient(a, dst); ok {
				s.pid <- who
				return
			}
		}
		pid := 0
		if p.pids != nil && err == nil {
			pid = p.pids.pid(a, dst)
		}
		ph, _ := p.current()
		s.pid <- client{pid: pid, origin: p.origin(pid, ph)}
	}()
	// The process's share is decided before anything is served: the
	// lookup's wait is the price of the per-process bound.
	who := s.clientPID()
	if !p.admitProcess(who) {
		c.SetLinger(0) // a reset: the client fails at once
		return
	}
	defer p.releaseProcess(who.pid)
	for _, a := range p.addrs {
		if dst == a {
			s.serveProxyRequests(bufio.NewReader(c))
			return
		}
	}
	s.serveTransparent(dst)
}

// newEvent starts the event of an attempt at host:port.
func (s *session) newEvent(via, host string, port int) netpolicy.Event {
	ph, _ := s.p.current()
	return netpolicy.Event{TS: time.Now().UnixNano(), Op: netpolicy.OpConnect, Phase: ph, Host: host, Port: port, Via: via}
}

// finish completes ev and sends it.
func (s *session) finish(ev netpolicy.Event, start time.Time) {
	who := s.clientPID()
	ev.PID, ev.Origin = who.pid, who.origin
	ev.DurationMS = float64(time.Since(start).Microseconds()) / 1000
	if s.p.cfg.Sink != nil {
		s.p.cfg.Sink.Event(ev)
	}
}

// isLoopback reports whether host names the run's own loopback (not a
// stand-in address of an allowed name).
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback() && !mappedPrefix.Contains(a)
}

// open decides an attempt at host:port (host normalised or not) and
// connects when allowed: to a service listening in the run's namespace
// for a loopback destination (always allowed), else, when the phase's
// policy allows it, to the destination resolved and dialled from the
// host. ev is filled with the decision, address and error.
func (s *session) open(ctx context.Context, ev *netpolicy.Event) (net.Conn, bool) {
	p := s.p
	s.answer = ""
	h, err := policy.NormaliseHost(ev.Host)
	if err != nil {
		ev.Reason = "bad host: " + err.Error()
		return nil, false
	}
	ev.Host = h
	if p.services[h] {
		return s.openService(ctx, ev)
	}
	ph, pol := p.current()
	if isLoopback(h) {
		if ev.Port == p.port {
			ev.Reason = "the proxy itself"
			return nil, false
		}
		if c, addr := s.dialLocal(ctx, h, ev.Port); c != nil {
			ev.Allowed, ev.Local, ev.Addr = true, true, addr
			return c, true
		}
		if !pol.Allows(h, ev.Port) {
			// The client sees the same answer whether or not the host
			// listens there (nothing of the host's is revealed).
			s.answer = fmt.Sprintf("%s: nothing of the run listens there, and the %s phase does not allow the host's", ev.Target(), ph)
			p.loopbackMiss(ev, ph, pol)
			return nil, false
		}
	}
	if !pol.Allows(h, ev.Port) {
		ev.Reason = fmt.Sprintf("%s is not allowed in the %s phase (network_mode %s)", ev.Target(), ph, pol.Mode)
		return nil, false
	}
	ev.Allowed = true
	ctx, cancel := context.WithTimeout(ctx, p.cfg.DialTimeout)
	defer cancel()
	addrs, err := p.cfg.Resolver.LookupNetIP(ctx, "ip", h)
	if err != nil {
		ev.Error = "resolve: " + err.Error()
		return nil, false
	}
	var d net.Dialer
	var errs []error
	for _, a := range addrs {
		addr := netip.AddrPortFrom(a.Unmap(), uint16(ev.Port)).String()
		c, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			ev.Addr = addr
			return c, true
		}
		errs = append(errs, err)
	}
	ev.Error = "dial: " + errors.Join(errs...).Error()
	return nil, false
}

// openService decides an attempt at a service of the run named by its
// stand-in (Config.Services): the phase's Policy.Services decides, and
// an allowed one is connected to the port in the run's namespace.
func (s *session) openService(ctx context.Context, ev *netpolicy.Event) (net.Conn, bool) {
	ph, pol := s.p.current()
	if !pol.AllowsService(ev.Host, ev.Port) {
		ev.Reason = fmt.Sprintf("%s: the run's policy does not allow this service in the %s phase", ev.Target(), ph)
		return nil, false
	}
	c, addr := s.dialLocal(ctx, "127.0.0.1", ev.Port)
	if c == nil {
		// Allowed, but it failed as it would without a proxy.
		ev.Allowed, ev.Local = true, true
		ev.Error = fmt.Sprintf("connect: connection refused: nothing of the run listens on port %d", ev.Port)
		return nil, false
	}
	ev.Allowed, ev.Local, ev.Addr = true, true, addr
	return c, true
}

// dialLocal connects to host:port inside the run's namespace, from a
// socket carrying the proxy's mark (so the redirect lets it through);
// nil when nothing listens there.
func (s *session) dialLocal(ctx context.Context, host string, port int) (net.Conn, string) {
	p := s.p
	ip := host
	if host == "localhost" {
		ip = "127.0.0.1"
	}
	addr := net.JoinHostPort(ip, strconv.Itoa(port))
	d := net.Dialer{Timeout: time.Second, Control: func(_, _ string, rc syscall.RawConn) error {
		var serr error
		err := rc.Control(func(fd uintptr) {
			serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_MARK, int(p.mark))
		})
		return errors.Join(err, serr)
	}}
	var c net.Conn
	err := inNetNS(p.ns, p.host, func() error {
		var err error
		c, err = d.DialContext(ctx, "tcp", addr)
		return err
	})
	if err != nil {
		return nil, ""
	}
	return c, addr
}

// decideSYN decides a new connection to a loopback address of the
// namespace (queued by the queue_syn rule) before the kernel answers it:
// to the proxy when a service of the run listens there (relayed, always
// allowed) or the phase allows the host's loopback address; otherwise it
// is recorded as refused and goes on unchanged, so that the kernel
// refuses it at connect() as it would without a proxy. A connection to
// the proxy's own port goes on unchanged (a proxy client).
func (p *Proxy) decideSYN(src, dst netip.AddrPort) bool {
	if int(dst.Port()) == p.port {
		return false
	}
	host, port := dst.Addr().Unmap().String(), int(dst.Port())
	ph, pol := p.current()
	inRun := p.pids.listening(dst)
	if !inRun && (pol.Allows(host, port) || pol.Allows("localhost", port)) && p.hostPids != nil && !p.hostPids.listening(dst) {
		// Allowed, but nothing listens there in the run or on the host:
		// the kernel refuses it at connect(), as without a proxy, so a
		// client tries its next address (localhost: ::1, then 127.0.0.1)
		// instead of a connection accepted and reset.
		ev := netpolicy.Event{TS: time.Now().UnixNano(), Op: netpolicy.OpConnect, Phase: ph, Host: host, Port: port, Via: netpolicy.ViaTransparent,
			PID: p.pids.pid(src, dst), Allowed: true, Local: true,
			Error: nothingListens(unmapped(dst).String())}
		ev.Origin = p.origin(ev.PID, ph)
		if p.cfg.Sink != nil {
			p.cfg.Sink.Event(ev)
		}
		return false
	}
	if inRun || pol.Allows(host, port) || pol.Allows("localhost", port) {
		p.noteSYNClient(src, dst, ph)
		return true
	}
	ev := netpolicy.Event{TS: time.Now().UnixNano(), Op: netpolicy.OpConnect, Phase: ph, Host: host, Port: port, Via: netpolicy.ViaTransparent,
		PID: p.pids.pid(src, dst)}
	ev.Origin = p.origin(ev.PID, ph)
	p.loopbackMiss(&ev, ph, pol)
	if p.cfg.Sink != nil {
		p.cfg.Sink.Event(ev)
	}
	return false
}

// maxSYNClients bounds synClients (entries of SYNs never accepted, a
// client that gave up, are dropped past it).
const maxSYNClients = 4096

// noteSYNClient finds the client of a SYN sent to the proxy while it
// waits in connect(), for serve.
func (p *Proxy) noteSYNClient(src, dst netip.AddrPort, ph netpolicy.Phase) {
	pid := p.pids.pid(src, dst)
	who := client{pid: pid, origin: p.origin(pid, ph), dst: unmapped(dst)}
	p.synMu.Lock()
	defer p.synMu.Unlock()
	if len(p.synClients) >= maxSYNClients {
		clear(p.synClients)
	}
	p.synClients[unmapped(src)] = who
}

func unmapped(a netip.AddrPort) netip.AddrPort { return netip.AddrPortFrom(a.Addr().Unmap(), a.Port()) }

// takeSYNClient is the client noteSYNClient found for the connection
// src → dst, if any (once).
func (p *Proxy) takeSYNClient(src, dst netip.AddrPort) (client, bool) {
	src = unmapped(src)
	p.synMu.Lock()
	defer p.synMu.Unlock()
	who, ok := p.synClients[src]
	delete(p.synClients, src)
	return who, ok && who.pid != 0 && who.dst == unmapped(dst)
}

// loopbackMiss decides an attempt at a loopback address where nothing
// of the run listens and which the phase does not allow on the host's
// loopback: refused by the policy when something of the daemon's host
// listens there (the policy kept the client from it: a denial); else it
// failed as it would without a proxy (ECONNREFUSED from the kernel, not
// the policy): allowed, local, with the error, and no denial.
func (p *Proxy) loopbackMiss(ev *netpolicy.Event, ph netpolicy.Phase, pol netpolicy.Policy) {
	t := ev.Target()
	a, err := netip.ParseAddr(ev.Host)
	if ev.Host == "localhost" {
		a, err = netip.MustParseAddr("127.0.0.1"), nil
	}
	if err == nil && p.hostPids != nil && !p.hostPids.listening(netip.AddrPortFrom(a, uint16(ev.Port))) {
		ev.Allowed, ev.Local = true, true
		ev.Error = nothingListens(t)
		return
	}
	ev.Reason = fmt.Sprintf("%s is not allowed in the %s phase (network_mode %s), and nothing of the run listens there", t, ph, pol.Mode)
}

// nothingListens is the error of an allowed loopback attempt at target
// where nothing listens, in the run or on the host.
func nothingListens(target string) string {
	return "connect: connection refused: nothing listens on " + target + " (in the run or on the host)"
}

// serveTransparent handles a connection redirected from dst: refused
// with a reset, or relayed (HTTP to the model endpoint is served as
// HTTP, to inject its key).
func (s *session) serveTransparent(dst netip.AddrPort) {
	host := dst.Addr().String()
	if name, ok := s.p.names[dst.Addr()]; ok {
		host = name
	}
	ev := s.newEvent(netpolicy.ViaTransparent, host, int(dst.Port()))
	if m := s.p.model; m != nil && m.plain && ev.Host == m.host && ev.Port == m.port {
		t := &fixedTarget{host: ev.Host, port: ev.Port}
		s.serveHTTP(bufio.NewReader(s.c), t)
		return
	}
	start := time.Now()
	up, ok := s.open(context.Background(), &ev)
	s.clientPID()
	if !ok {
		s.c.SetLinger(0) // a reset: the client fails at once
		s.finish(ev, start)
		return
	}
	res := relay(s.c, s.c, up, s.p.cfg.IdleTimeout)
	ev.BytesOut, ev.BytesIn, ev.IdleClosed, ev.SNI = res.out, res.in, res.idleClosed, sniffSNI(res.firstOut)
	if res.err != nil {
		ev.Error = "relay: " + res.err.Error()
	}
	s.finish(ev, start)
}
