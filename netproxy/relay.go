package netproxy

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/authbench/authbench/policy"
)

// relayBuf is the buffer of one direction of a relay: a relay holds two
// whatever passes through it (memory stays bounded for gigabytes).
const relayBuf = 32 << 10

// activity is the last time any direction of a connection moved bytes.
type activity struct{ last atomic.Int64 }

func (a *activity) touch() { a.last.Store(time.Now().UnixNano()) }
func (a *activity) idleFor() time.Duration {
	return time.Duration(time.Now().UnixNano() - a.last.Load())
}

// relayResult is what a relay moved.
type relayResult struct {
	out, in    int64 // client → server, server → client
	idleClosed bool
	firstOut   []byte // the client's first bytes (up to 1 KiB), for SNI
	err        error
}

// relay copies between client (read through cr, which may hold bytes
// already buffered) and server until both directions end, or neither
// moved a byte for idle; then closes both.
func relay(client net.Conn, cr io.Reader, server net.Conn, idle time.Duration) relayResult {
	var act activity
	act.touch()
	var res relayResult
	var idleHit atomic.Bool
	var wg sync.WaitGroup
	var errOut, errIn error
	wg.Add(2)
	go func() {
		defer wg.Done()
		res.out, errOut = copyIdle(server, cr, client, &act, idle, &idleHit, &res.firstOut)
		closeWrite(server)
	}()
	go func() {
		defer wg.Done()
		res.in, errIn = copyIdle(client, server, server, &act, idle, &idleHit, nil)
		closeWrite(client)
	}()
	wg.Wait()
	client.Close()
	server.Close()
	res.idleClosed = idleHit.Load()
	res.err = errors.Join(errOut, errIn)
	return res
}

// copyIdle copies src to dst with a fixed buffer, setting a read
// deadline of idle on conn (src's connection) before each read; a
// deadline reached while the other direction moved bytes recently is
// not idleness. On idleness it closes conn's read side and dst (so the
// other direction ends too). first, when set, receives the first bytes
// read.
func copyIdle(dst io.Writer, src io.Reader, conn net.Conn, act *activity, idle time.Duration, idleHit *atomic.Bool, first *[]byte) (int64, error) {
	buf := make([]byte, relayBuf)
	var n int64
	for {
		if idle > 0 {
			conn.SetReadDeadline(time.Now().Add(idle))
		}
		r, rerr := src.Read(buf)
		if r > 0 {
			act.touch()
			if first != nil && *first == nil {
				*first = append([]byte(nil), buf[:min(r, 1024)]...)
			}
			w, werr := dst.Write(buf[:r])
			n += int64(w)
			if werr != nil {
				return n, ignoreClosed(werr)
			}
		}
		switch {
		case rerr == nil:
		case errors.Is(rerr, os.ErrDeadlineExceeded):
			if idleHit.Load() {
				return n, nil
			}
			if act.idleFor() < idle {
				continue
			}
			idleHit.Store(true)
			if c, ok := dst.(net.Conn); ok {
				c.Close()
			}
			return n, nil
		case errors.Is(rerr, io.EOF):
			return n, nil
		default:
			return n, ignoreClosed(rerr)
		}
	}
}

// ignoreClosed drops the errors of a connection closed under a copy (the
// other direction ended or hit the idle timeout) or ended by its peer
// with a reset (a client that closes with unread data, or with
// SO_LINGER 0, after a complete exchange): the relay's end, not a fault.
func ignoreClosed(err error) error {
	if errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return nil
	}
	return err
}

// closeWrite half-closes c when it can (TCP), else closes it.
func closeWrite(c net.Conn) {
	if tc, ok := c.(interface{ CloseWrite() error }); ok {
		tc.CloseWrite()
		return
	}
	c.Close()
}

// countWriter counts what passes to W.
type countWriter struct {
	W io.Writer
	N int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.W.Write(p)
	c.N += int64(n)
	return n, err
}

// sniffSNI returns the server name of a TLS ClientHello at the start of
// b, "" when b is not one (or is cut before the name). It is pure.
func sniffSNI(b []byte) string {
	// record: type 22, version(2), length(2); handshake: type 1, len(3),
	// version(2), random(32), session id, cipher suites, compression,
	// extensions.
	if len(b) < 5 || b[0] != 22 {
		return ""
	}
	b = b[5:]
	if len(b) < 4 || b[0] != 1 {
		return ""
	}
	b = b[4:]
	skip := func(n int) bool {
		if len(b) < n {
			return false
		}
		b = b[n:]
		return true
	}
	vec := func(lenBytes int) bool {
		if len(b) < lenBytes {
			return false
		}
		n := 0
		for i := 0; i < lenBytes; i++ {
			n = n<<8 | int(b[i])
		}
		return skip(lenBytes + n)
	}
	if !skip(2+32) || !vec(1) || !vec(2) || !vec(1) || len(b) < 2 {
		return ""
	}
	b = b[2:] // extensions length (the data may be cut: walk what there is)
	for len(b) >= 4 {
		typ, n := int(b[0])<<8|int(b[1]), int(b[2])<<8|int(b[3])
		b = b[4:]
		if len(b) < n {
			return ""
		}
		ext := b[:n]
		b = b[n:]
		if typ != 0 { // server_name
			continue
		}
		// list length(2), then entries: type(1) len(2) name
		if len(ext) < 5 || ext[2] != 0 {
			return ""
		}
		l := int(ext[3])<<8 | int(ext[4])
		if len(ext) < 5+l {
			return ""
		}
		if h, err := policy.NormaliseHost(string(ext[5 : 5+l])); err == nil {
			return h
		}
		return ""
	}
	return ""
}
