package netproxy

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/authbench/authbench/netproxy/netpolicy"
)

// fixedTarget is the destination of a transparent HTTP connection
// (served as HTTP only for the model endpoint).
type fixedTarget struct {
	host string
	port int
}

// serveProxyRequests serves a client of the proxy port: CONNECT tunnels
// and absolute-URI HTTP requests.
func (s *session) serveProxyRequests(br *bufio.Reader) { s.serveHTTP(br, nil) }

// upstream is the server connection a client's HTTP requests reuse while
// they go to one destination.
type upstream struct {
	key   string
	c     net.Conn
	br    *bufio.Reader
	local bool // a service of the run's namespace
}

func (u *upstream) close() {
	if u.c != nil {
		u.c.Close()
		u.c, u.br, u.key = nil, nil, ""
	}
}

// serveHTTP reads requests from the client until it closes, is idle for
// IdleTimeout, or a request ends the connection. fixed: the destination
// of every request (a transparent connection); nil: a proxy client.
func (s *session) serveHTTP(br *bufio.Reader, fixed *fixedTarget) {
	var up upstream
	defer up.close()
	for {
		s.c.SetReadDeadline(time.Now().Add(s.p.cfg.IdleTimeout))
		req, err := http.ReadRequest(br)
		if err != nil {
			if fixed == nil && !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) && !isTimeout(err) {
				writeError(s.c, http.StatusBadRequest, "authbench proxy: not an HTTP proxy request: "+err.Error())
			}
			return
		}
		s.c.SetReadDeadline(time.Time{})
		if fixed == nil && req.Method == http.MethodConnect {
			s.serveConnect(br, req)
			return
		}
		if !s.forward(br, req, fixed, &up) {
			return
		}
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// writeError answers a proxy client with status and msg, closing the
// connection.
func writeError(w io.Writer, status int, msg string) {
	fmt.Fprintf(w, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\nX-Authbench-Proxy: refused\r\n\r\n%s",
		status, http.StatusText(status), len(msg)+1, msg+"\n")
}

// splitTarget splits a request's host[:port] with a default port.
func splitTarget(hostport string, def int) (string, int, error) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		if strings.Contains(err.Error(), "missing port") {
			return strings.Trim(hostport, "[]"), def, nil
		}
		return "", 0, err
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return "", 0, fmt.Errorf("bad port %q", port)
	}
	return host, n, nil
}

// serveConnect answers a CONNECT: refused (403, the reason in the body),
// failed (502), or a tunnel relayed until it ends.
func (s *session) serveConnect(br *bufio.Reader, req *http.Request) {
	start := time.Now()
	host, port, err := splitTarget(req.RequestURI, 443)
	ev := s.newEvent(netpolicy.ViaConnect, host, port)
	if err != nil {
		s.clientPID()
		writeError(s.c, http.StatusBadRequest, "authbench proxy: CONNECT "+req.RequestURI+": "+err.Error())
		ev.Reason = "bad target: " + err.Error()
		s.finish(ev, start)
		return
	}
	up, ok := s.open(req.Context(), &ev)
	s.clientPID()
	if !ok {
		s.answerFailed(ev, start)
		return
	}
	if _, err := io.WriteString(s.c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		up.Close()
		ev.Error = "client: " + err.Error()
		s.finish(ev, start)
		return
	}
	res := relay(s.c, br, up, s.p.cfg.IdleTimeout)
	ev.BytesOut, ev.BytesIn, ev.IdleClosed, ev.SNI = res.out, res.in, res.idleClosed, sniffSNI(res.firstOut)
	if res.err != nil {
		ev.Error = "relay: " + res.err.Error()
	}
	s.finish(ev, start)
}

// answerFailed answers a proxy client whose attempt open refused (403,
// the reason in the body) or could not connect (502 naming the
// destination and the error; 403 still for the run's own loopback, as
// before, without telling whether the host listens there), and sends the
// attempt's event.
func (s *session) answerFailed(ev netpolicy.Event, start time.Time) {
	status, msg := http.StatusForbidden, "authbench proxy: refused: "+ev.Reason
	switch {
	case s.answer != "":
		msg = "authbench proxy: refused: " + s.answer
	case ev.Allowed && ev.Local:
		msg = "authbench proxy: refused: " + ev.Target() + ": " + ev.Error // as before: the run's own port is closed
	case ev.Allowed:
		status, msg = http.StatusBadGateway, "authbench proxy: "+ev.Target()+": "+ev.Error
	}
	writeError(s.c, status, msg)
	s.finish(ev, start)
}

// hopHeaders are not forwarded (RFC 9110 §7.6.1, and the proxy's own).
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

func removeHop(h http.Header) {
	for _, f := range h["Connection"] {
		for _, name := range strings.Split(f, ",") {
			h.Del(strings.TrimSpace(name))
		}
	}
	for _, k := range hopHeaders {
		h.Del(k)
	}
}

// forward sends one HTTP request on and its answer back (one event);
// false when the client connection must end.
func (s *session) forward(br *bufio.Reader, req *http.Request, fixed *fixedTarget, up *upstream) bool {
	start := time.Now()
	var host string
	var port int
	via := netpolicy.ViaHTTP
	if fixed != nil {
		host, port, via = fixed.host, fixed.port, netpolicy.ViaTransparent
	} else {
		if !req.URL.IsAbs() || req.URL.Scheme != "http" || req.URL.Host == "" {
			writeError(s.c, http.StatusBadRequest, "authbench proxy: expected an absolute http:// URI (HTTPS goes through CONNECT), got "+req.RequestURI)
			return false
		}
		var err error
		if host, port, err = splitTarget(req.URL.Host, 80); err != nil {
			writeError(s.c, http.StatusBadRequest, "authbench proxy: "+req.URL.Host+": "+err.Error())
			return false
		}
	}
	ev := s.newEvent(via, host, port)
	ev.Method, ev.Path = req.Method, req.URL.Path
	key := strings.ToLower(host) + ":" + strconv.Itoa(port)
	if up.key != key {
		up.close()
		c, ok := s.open(req.Context(), &ev)
		s.clientPID()
		if !ok {
			s.answerFailed(ev, start)
			return false
		}
		up.key, up.c, up.br, up.local = key, c, bufio.NewReaderSize(c, 16<<10), ev.Local
	} else {
		ev.Host, ev.Allowed, ev.Addr, ev.Local = strings.ToLower(host), true, up.c.RemoteAddr().String(), up.local
	}
	if m := s.p.model; m != nil && m.plain && ev.Host == m.host && ev.Port == m.port && !ev.Local {
		// The key goes only where the harness talks to the model: its
		// base URL's path and methods; any other request to that host
		// is sent as the agent made it (with the placeholder at most).
		if netpolicy.KeyApplies(m.prefix, req.Method, req.URL.EscapedPath()) {
			netpolicy.SetKey(req.Header, m.key)
			ev.KeyInjected = true
		} else {
			ev.KeyWithheld = true
		}
	}
	ok := s.roundTrip(req, up, &ev)
	s.finish(ev, start)
	return ok
}

// roundTrip writes req to the upstream and copies the response to the
// client, streaming both bodies through fixed buffers; false when either
// connection must close after it.
func (s *session) roundTrip(req *http.Request, up *upstream, ev *netpolicy.Event) bool {
	removeHop(req.Header)
	req.RequestURI = ""
	req.Close = false
	up.c.SetDeadline(time.Time{})
	uw := bufio.NewWriterSize(up.c, 16<<10)
	ucount := &countWriter{W: uw}
	if req.Body != nil {
		req.Body = &flushBeforeRead{ReadCloser: req.Body, w: uw, idle: s.p.cfg.IdleTimeout, conn: s.c}
	}
	err := req.Write(ucount)
	if err == nil {
		err = uw.Flush()
	}
	ev.BytesOut = ucount.N
	if err != nil {
		ev.Error = "request: " + err.Error()
		up.close()
		writeError(s.c, http.StatusBadGateway, "authbench proxy: "+ev.Target()+": "+err.Error())
		return false
	}
	up.c.SetReadDeadline(time.Now().Add(s.p.cfg.IdleTimeout))
	resp, err := http.ReadResponse(up.br, req)
	if err != nil {
		ev.Error = "response: " + err.Error()
		up.close()
		writeError(s.c, http.StatusBadGateway, "authbench proxy: "+ev.Target()+": "+err.Error())
		return false
	}
	defer resp.Body.Close()
	closeAfter := resp.Close || req.Close
	removeHop(resp.Header)
	cw := bufio.NewWriterSize(s.c, 16<<10)
	ccount := &countWriter{W: cw}
	resp.Body = &flushBeforeRead{ReadCloser: resp.Body, w: cw, idle: s.p.cfg.IdleTimeout, conn: up.c}
	err = resp.Write(ccount)
	if err == nil {
		err = cw.Flush()
	}
	ev.BytesIn = ccount.N
	if err != nil {
		ev.Error = "response: " + err.Error()
		up.close()
		return false
	}
	if closeAfter {
		up.close()
		return false
	}
	return true
}

// flushBeforeRead flushes w before each read of a body, so that a
// streamed body (server-sent events) goes on as it comes, and renews the
// idle deadline of the connection the body comes from.
type flushBeforeRead struct {
	io.ReadCloser
	w    *bufio.Writer
	idle time.Duration
	conn net.Conn
}

func (f *flushBeforeRead) Read(p []byte) (int, error) {
	if err := f.w.Flush(); err != nil {
		return 0, err
	}
	f.conn.SetReadDeadline(time.Now().Add(f.idle))
	return f.ReadCloser.Read(p)
}
