package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/authbench/authbench/runapi"
	"go.uber.org/zap"
	"golang.org/x/sys/unix"
)

// Defaults of the connection and run limits (Config).
const (
	// DefaultMaxConnsPerUID bounds the open API connections of one
	// non-root uid.
	DefaultMaxConnsPerUID = 32
	// DefaultMaxActivePerUID bounds the queued plus running runs of one
	// non-root caller: half of DefaultMaxConcurrent, so that one member
	// cannot hold every execution slot.
	DefaultMaxActivePerUID = DefaultMaxConcurrent / 2
	// DefaultMaxOutputBytes caps each stored stream of a run (stdout,
	// stderr, events).
	DefaultMaxOutputBytes = 64 << 20
	// minRootReserve is the least number of descriptors kept for root's
	// connections, runs and the daemon itself when non-root connections
	// are capped.
	minRootReserve = 256
	// maxLingering and lingerFor bound the draining of refused
	// connections (drainAndClose).
	maxLingering = 64
	lingerFor    = 500 * time.Millisecond
	// refusalLogEvery is how often a refused uid is logged at most.
	refusalLogEvery = 10 * time.Second
)

// Timeouts of an API connection.
const (
	readHeaderTimeout = 10 * time.Second
	// readTimeout bounds reading a whole request, body included: slow or
	// half-sent bodies are dropped.
	readTimeout = 30 * time.Second
	// idleTimeout closes keep-alive connections with no request.
	idleTimeout = 60 * time.Second
	// writeTimeout bounds writing a response, or one chunk of a followed
	// log (the deadline moves with every chunk).
	writeTimeout = 30 * time.Second
)

// raiseFileLimit raises the soft RLIMIT_NOFILE to the hard one (Go's
// runtime normally has already) and returns the limit in force.
func raiseFileLimit() (uint64, error) {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		return 0, fmt.Errorf("get RLIMIT_NOFILE: %w", err)
	}
	if lim.Cur < lim.Max {
		// Only when needed: setting it ourselves would also change the
		// limit that the runs' trees inherit.
		lim.Cur = lim.Max
		if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
			return 0, fmt.Errorf("raise RLIMIT_NOFILE to %d: %w", lim.Max, err)
		}
	}
	return lim.Cur, nil
}

// nonRootConnCap is how many connections non-root peers may hold in all
// with fileLimit descriptors: the rest is kept for root.
func nonRootConnCap(fileLimit uint64) int {
	reserve := max(fileLimit/8, minRootReserve)
	if fileLimit <= 2*reserve {
		return int(fileLimit / 2)
	}
	return int(fileLimit - reserve)
}

// connLimiter is a listener that refuses, at accept time, the
// connections of a non-root uid beyond perUID, and of all non-root uids
// beyond total; root is never refused here. A refused connection gets a
// minimal HTTP 429 with a JSON reason and is closed.
type connLimiter struct {
	*net.UnixListener
	perUID int
	total  int
	m      Metrics
	log    *zap.Logger

	// lingering bounds the refused connections still being drained.
	lingering chan struct{}

	mu       sync.Mutex
	byUID    map[uint32]int
	nonRoot  int
	lastLogs map[uint32]time.Time
}

func newConnLimiter(ln *net.UnixListener, perUID, total int, m Metrics, log *zap.Logger) *connLimiter {
	return &connLimiter{
		UnixListener: ln, perUID: perUID, total: total, m: m, log: log,
		byUID: map[uint32]int{}, lastLogs: map[uint32]time.Time{}, lingering: make(chan struct{}, maxLingering),
	}
}

// Accept returns the next connection within the limits.
func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.UnixListener.AcceptUnix()
		if err != nil {
			return nil, err
		}
		peer, err := readCred(c)
		if err != nil {
			return c, nil // refused later by authorisation, with its reason
		}
		if reason := l.admit(peer); reason != "" {
			l.refuse(c, peer, reason)
			continue
		}
		return &limitedConn{UnixConn: c, l: l, uid: peer.UID}, nil
	}
}

// admit counts a new connection of peer, or returns why it is refused.
func (l *connLimiter) admit(p Peer) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if p.UID == 0 {
		return ""
	}
	switch {
	case l.byUID[p.UID] >= l.perUID:
		return fmt.Sprintf("uid %d already holds %d connections to the daemon (the per-uid limit)", p.UID, l.perUID)
	case l.nonRoot >= l.total:
		return fmt.Sprintf("the daemon holds %d connections of non-root users (its limit, keeping descriptors for root)", l.total)
	}
	l.byUID[p.UID]++
	l.nonRoot++
	return ""
}

func (l *connLimiter) release(uid uint32) {
	if uid == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.nonRoot--
	if l.byUID[uid]--; l.byUID[uid] <= 0 {
		delete(l.byUID, uid)
	}
}

// refuse answers 429 (with reason) and closes c.
func (l *connLimiter) refuse(c *net.UnixConn, p Peer, reason string) {
	l.m.ConnRefused()
	body, _ := json.Marshal(runapi.ErrorResponse{Error: "too many connections: " + reason})
	resp := fmt.Sprintf("HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s\n", len(body)+1, body)
	l.answerAndClose(c, []byte(resp))

	l.mu.Lock()
	now := time.Now()
	logIt := now.Sub(l.lastLogs[p.UID]) >= refusalLogEvery
	if logIt {
		l.lastLogs[p.UID] = now
	}
	l.mu.Unlock()
	if logIt {
		l.log.Warn("connection refused (logged at most every 10s per uid)",
			zap.Uint32("uid", p.UID), zap.Int32("pid", p.PID), zap.String("reason", reason))
	}
}

// answerAndClose writes resp on a refused connection and closes it. It
// first reads the request's head for a moment (a client still writing
// its request to a closed connection gets EPIPE instead of the answer,
// and HTTP clients ignore an answer that comes before their request).
// At most maxLingering connections linger so; others are answered and
// closed at once.
func (l *connLimiter) answerAndClose(c *net.UnixConn, resp []byte) {
	answer := func() {
		_ = c.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
		_, _ = c.Write(resp)
	}
	select {
	case l.lingering <- struct{}{}:
	default:
		answer()
		c.Close()
		return
	}
	go func() {
		defer func() { <-l.lingering }()
		defer c.Close()
		_ = c.SetReadDeadline(time.Now().Add(lingerFor))
		readRequestHead(c)
		answer()
		_ = c.CloseWrite()
		_, _ = io.Copy(io.Discard, io.LimitReader(c, 64<<10)) // until the client closes, or the deadline
	}()
}

// readRequestHead reads from r until the end of an HTTP request head,
// 64 KiB, or an error (the deadline).
func readRequestHead(r io.Reader) {
	buf := make([]byte, 0, 4<<10)
	chunk := make([]byte, 4<<10)
	for len(buf) < 64<<10 {
		n, err := r.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if bytes.Contains(buf, []byte("\r\n\r\n")) || err != nil {
			return
		}
	}
}

// limitedConn gives its place back when closed.
type limitedConn struct {
	*net.UnixConn
	l    *connLimiter
	uid  uint32
	once sync.Once
}

func (c *limitedConn) Close() error {
	c.once.Do(func() { c.l.release(c.uid) })
	return c.UnixConn.Close()
}

// connContext records the peer of a connection accepted by connLimiter
// (see Authorizer.peerContext).
func connContext(ctx context.Context, c net.Conn, auth *Authorizer) context.Context {
	if lc, ok := c.(*limitedConn); ok {
		c = lc.UnixConn
	}
	return auth.peerContext(ctx, c)
}
