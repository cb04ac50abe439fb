package broker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
	"golang.org/x/sys/unix"
)

// Call is one request as the server took it.
type Call struct {
	Message
	// Stdio are the caller's standard descriptors (stdin, stdout,
	// stderr) when Command is set, else nil. The server closes them.
	Stdio []*os.File
	// Pid is the caller's pid as the host sees it.
	Pid int
}

// Run carries out a granted command and returns its end; it is called
// on its own goroutine, and ctx ends with the server.
type Run func(ctx context.Context) Reply

// Server is the host side of a run's channel. Set Handle (and Peer),
// then Listen and Serve; Close ends it.
type Server struct {
	// Handle decides c (by the run's permreq.Desk) and returns the
	// answer, and for a granted command the Run that starts it.
	Handle func(ctx context.Context, c *Call) (Reply, Run)
	// Peer, when set, checks the connecting process (its pid as the
	// host sees it): an error refuses it before anything is read.
	Peer func(pid int) error
	// Log, when set, logs refused connections.
	Log *zap.Logger

	ln      *net.UnixListener
	sem     chan struct{}
	wg      sync.WaitGroup
	cancel  context.CancelFunc
	counted Counts
}

// Counts are what a server refused before a request reached Handle.
type Counts struct {
	Served, Malformed, PeerRefused, Busy atomic.Int64
}

// Listen binds the socket SocketName in dir (which the caller binds
// into the container), reachable by any uid in there (the peer check
// decides who may ask).
func (s *Server) Listen(dir string) error {
	p := filepath.Join(dir, SocketName)
	ln, err := net.ListenUnix("unixpacket", &net.UnixAddr{Name: p, Net: "unixpacket"})
	if err != nil {
		return fmt.Errorf("request channel: listen %s: %w", p, err)
	}
	ln.SetUnlinkOnClose(true)
	if err := os.Chmod(p, 0o666); err != nil {
		ln.Close()
		return fmt.Errorf("request channel: %w", err)
	}
	s.ln, s.sem = ln, make(chan struct{}, MaxRunning)
	return nil
}

// Counts are the server's counters.
func (s *Server) Counts() *Counts { return &s.counted }

// Serve takes connections one at a time until Close (or ctx ends).
func (s *Server) Serve(ctx context.Context) {
	ctx, s.cancel = context.WithCancel(ctx)
	stop := context.AfterFunc(ctx, func() { s.ln.Close() })
	defer stop()
	for {
		c, err := s.ln.AcceptUnix()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(10 * time.Millisecond) // EMFILE and the like: retry
			continue
		}
		if !s.serve(ctx, c) {
			c.Close()
		}
	}
}

// Close stops taking requests, ends the runs' context and waits for
// the commands started (the caller ends their container first).
func (s *Server) Close() {
	if s.cancel != nil {
		s.cancel()
	}
	s.ln.Close()
	s.wg.Wait()
}

// serve answers one connection; true when a Run took it over.
func (s *Server) serve(ctx context.Context, c *net.UnixConn) bool {
	pid, err := s.checkPeer(c)
	if err != nil {
		if call, rerr := read(c); rerr == nil {
			closeAll(call.Stdio) // read, so that the refusal reaches it
		}
		s.counted.PeerRefused.Add(1)
		if s.Log != nil {
			s.Log.Warn("permission request from outside the agent refused", zap.Int("pid", pid), zap.Error(err))
		}
		reply(c, Reply{Decision: "refused", Why: "refused: " + err.Error()})
		return false
	}
	call, err := read(c)
	if err != nil {
		s.counted.Malformed.Add(1)
		reply(c, Reply{Decision: "invalid", Why: "invalid request: " + err.Error()})
		return false
	}
	call.Pid = pid
	defer func() {
		if call != nil {
			closeAll(call.Stdio)
		}
	}()
	if len(call.Command) > 0 {
		select {
		case s.sem <- struct{}{}:
		default:
			s.counted.Busy.Add(1)
			reply(c, Reply{Decision: "refused", Why: fmt.Sprintf("refused: %d granted commands are running already", MaxRunning)})
			return false
		}
	}
	s.counted.Served.Add(1)
	ans, run := s.Handle(ctx, call)
	if err := reply(c, ans); err != nil || run == nil {
		if len(call.Command) > 0 {
			<-s.sem
		}
		return false
	}
	stdio := call.Stdio
	call = nil // the run's now
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() { <-s.sem }()
		defer c.Close()
		end := run(ctx)
		closeAll(stdio)
		end.Exited = end.Error == ""
		reply(c, end)
	}()
	return true
}

// read takes the connection's one datagram: at most MaxMessageBytes, no
// descriptors but exactly the three standard ones of a command.
func read(c *net.UnixConn) (*Call, error) {
	c.SetReadDeadline(time.Now().Add(IOTimeout))
	buf := make([]byte, MaxMessageBytes+1)
	oob := make([]byte, unix.CmsgSpace(4*4))
	n, oobn, flags, _, err := c.ReadMsgUnix(buf, oob)
	fds, ferr := rights(oob[:oobn])
	call := &Call{Stdio: fds}
	switch {
	case errors.Is(err, io.EOF):
		err = errors.New("malformed request: empty")
	case err != nil:
		err = fmt.Errorf("read: %w", err)
	case ferr != nil:
		err = ferr
	case flags&unix.MSG_TRUNC != 0 || n > MaxMessageBytes:
		err = fmt.Errorf("a request is at most %d bytes", MaxMessageBytes)
	case flags&unix.MSG_CTRUNC != 0:
		err = errors.New("too many descriptors: send none, or the three standard ones with a command")
	default:
		call.Message, err = DecodeMessage(buf[:n])
	}
	if err == nil && len(call.Stdio) != 0 && len(call.Stdio) != 3 {
		err = fmt.Errorf("%d descriptors: send none, or the three standard ones with a command", len(call.Stdio))
	}
	if err == nil && (len(call.Command) > 0) != (len(call.Stdio) == 3) {
		err = errors.New("a command comes with its three standard descriptors, and only a command")
	}
	if err != nil {
		closeAll(call.Stdio)
		return nil, err
	}
	return call, nil
}

// rights are the descriptors passed in oob, as files.
func rights(oob []byte) ([]*os.File, error) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, fmt.Errorf("control message: %w", err)
	}
	var out []*os.File
	var bad error
	for _, m := range msgs {
		fds, err := unix.ParseUnixRights(&m)
		if err != nil {
			bad = errors.New("a control message that is not descriptors")
			continue
		}
		for _, fd := range fds {
			out = append(out, os.NewFile(uintptr(fd), "request-stdio-"+strconv.Itoa(len(out))))
		}
	}
	if bad != nil {
		closeAll(out)
		return nil, bad
	}
	return out, nil
}

func closeAll(fs []*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// reply sends one answer within IOTimeout.
func reply(c *net.UnixConn, r Reply) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	c.SetWriteDeadline(time.Now().Add(IOTimeout))
	_, err = c.Write(b)
	return err
}

// checkPeer names the connecting process from the pidfd the kernel
// gives (SO_PEERPIDFD), checks it with Peer, and refuses it if it ended
// meanwhile (its pid could name another process by then).
func (s *Server) checkPeer(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, err
	}
	pidfd, serr := -1, error(nil)
	if err := raw.Control(func(fd uintptr) {
		pidfd, serr = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_PEERPIDFD)
	}); err != nil {
		return 0, err
	}
	if serr != nil {
		return 0, fmt.Errorf("the peer's pidfd: %w", serr)
	}
	defer unix.Close(pidfd)
	pid, err := pidOfPidfd(pidfd)
	if err != nil {
		return 0, err
	}
	if s.Peer != nil {
		if err := s.Peer(pid); err != nil {
			return pid, err
		}
	}
	if err := unix.PidfdSendSignal(pidfd, 0, nil, 0); err != nil {
		return pid, fmt.Errorf("the asking process %d ended: %w", pid, err)
	}
	return pid, nil
}

// pidOfPidfd reads the pid of a pidfd from /proc/self/fdinfo.
func pidOfPidfd(fd int) (int, error) {
	b, err := os.ReadFile("/proc/self/fdinfo/" + strconv.Itoa(fd))
	if err != nil {
		return 0, fmt.Errorf("the peer's pid: %w", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Pid:"); ok {
			pid, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || pid <= 0 {
				return 0, fmt.Errorf("the peer's pid: %q", v)
			}
			return pid, nil
		}
	}
	return 0, errors.New("the peer's pid: not in its pidfd's fdinfo")
}

// SamePIDNamespace is a Peer check: pid must be in the PID namespace of
// process init (a container's init, as the host sees it).
func SamePIDNamespace(init int) func(pid int) error {
	want, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", init))
	return func(pid int) error {
		if err != nil {
			return fmt.Errorf("the agent's PID namespace: %w", err)
		}
		got, gerr := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", pid))
		if gerr != nil || got != want {
			return fmt.Errorf("process %d is not in the agent's container", pid)
		}
		return nil
	}
}
