package broker

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/permreq"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
)

// The test binary is the program too: with this variable set it runs
// Main against the socket it names.
const clientEnv = "BROKER_TEST_SOCKET"

func TestMain(m *testing.M) {
	if sock := os.Getenv(clientEnv); sock != "" {
		os.Exit(Main(sock, os.Args[1:], os.Stderr))
	}
	os.Exit(m.Run())
}

// desk is a run's desk under the spec decider over a small root: a
// required input and a sensitive key.
func desk(t *testing.T, max int) *permreq.Desk {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"data/in.txt", "data/secret.key"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644)
	}
	root, err := policy.NewRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	spec := &policy.Spec{Sensitive: &policy.Permissions{}}
	spec.Required[policy.Read] = []policy.Pattern{policy.MustPattern("/data/in.txt")}
	spec.Sensitive[policy.Read] = []policy.Pattern{policy.MustPattern("/data/secret.key")}
	d, err := permreq.NewDecider("spec", spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	return permreq.NewDesk(d, spec, root, policy.PlanOptions{}, permreq.Limits{Max: max})
}

// server serves a desk on a fresh socket; granted commands run run.
type testServer struct {
	*Server
	sock string
	desk *permreq.Desk
	runs atomic.Int64
}

func serve(t *testing.T, d *permreq.Desk, run func(c *Call) Reply) *testServer {
	t.Helper()
	dir, err := os.MkdirTemp("", "broker")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	ts := &testServer{sock: filepath.Join(dir, SocketName), desk: d}
	ts.Server = &Server{Handle: func(ctx context.Context, c *Call) (Reply, Run) {
		_, rec, g := d.Ask(ctx, c.Access, c.Path, c.Reason)
		ans := Reply{Decision: rec.Decision, Why: rec.Why, Rules: rec.Rules}
		if g == nil || len(c.Command) == 0 || run == nil {
			return ans, nil
		}
		stdio := c.Stdio
		return ans, func(context.Context) Reply { ts.runs.Add(1); return run(&Call{Message: c.Message, Stdio: stdio}) }
	}}
	if err := ts.Listen(dir); err != nil {
		t.Fatal(err)
	}
	go ts.Serve(context.Background())
	t.Cleanup(ts.Close)
	return ts
}

func TestAskDecides(t *testing.T) {
	ts := serve(t, desk(t, 8), nil)
	for _, c := range []struct{ access, path, want, why string }{
		{"read", "/data/in.txt", runapi.RequestGranted, "spec covers"},
		{"read", "/data/secret.key", runapi.RequestRefused, "sensitive"},
		{"read", "data/in.txt", runapi.RequestInvalid, "not absolute"},
		{"delete", "/data/in.txt", runapi.RequestInvalid, "unknown axis"},
	} {
		r, conn, err := Ask(ts.sock, Message{Access: c.access, Path: c.path, Reason: "the task reads it"})
		if err != nil {
			t.Fatalf("%s %s: %v", c.access, c.path, err)
		}
		conn.Close()
		if r.Decision != c.want || !strings.Contains(r.Why, c.why) {
			t.Errorf("%s %s: %+v, want %s (%s)", c.access, c.path, r, c.want, c.why)
		}
	}
}

// raw sends b (and oob) as one datagram and returns the answer.
func raw(t *testing.T, sock string, b, oob []byte) Reply {
	t.Helper()
	c, err := net.DialUnix("unixpacket", nil, &net.UnixAddr{Name: sock, Net: "unixpacket"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, _, err := c.WriteMsgUnix(b, oob, nil); err != nil {
		t.Fatalf("send %d bytes: %v", len(b), err)
	}
	r, err := readReply(c)
	if err != nil {
		t.Fatalf("answer to %d bytes: %v", len(b), err)
	}
	return r
}

// TestMalformedRequests: hostile datagrams get a clear error and reach
// neither the desk nor a command; the desk grants nothing.
func TestMalformedRequests(t *testing.T) {
	d := desk(t, 8)
	ts := serve(t, d, func(*Call) Reply { return Reply{} })
	junk := make([]byte, 4096)
	for i := range junk {
		junk[i] = byte(i*7 + 3)
	}
	ok, _ := json.Marshal(Message{Access: "read", Path: "/data/in.txt", Reason: "r"})
	cmd, _ := json.Marshal(Message{Access: "read", Path: "/data/in.txt", Reason: "r", Command: []string{"/bin/cat"}})
	devnull, _ := os.Open(os.DevNull)
	defer devnull.Close()
	nul := int(devnull.Fd())
	for _, c := range []struct {
		name string
		b    []byte
		oob  []byte
		want string
	}{
		{"binary junk", junk, nil, "malformed request"},
		{"an oversized reason", []byte(`{"access":"read","path":"/data/in.txt","reason":"` + strings.Repeat("x", MaxMessageBytes) + `"}`), nil, "at most 16384 bytes"},
		{"unknown field", []byte(`{"access":"read","path":"/data/in.txt","reason":"r","grant":true}`), nil, "unknown field"},
		{"two objects", append(append([]byte(nil), ok...), ok...), nil, "data after"},
		{"a relative dir", []byte(`{"access":"read","path":"/data/in.txt","reason":"r","command":["/bin/cat"],"dir":"tmp"}`), unix.UnixRights(nul, nul, nul), "not an absolute"},
		{"descriptors without a command", ok, unix.UnixRights(nul, nul, nul), "only a command"},
		{"a command without descriptors", cmd, nil, "three standard descriptors"},
		{"one descriptor", cmd, unix.UnixRights(nul), "1 descriptors"},
		{"many descriptors", cmd, unix.UnixRights(nul, nul, nul, nul, nul, nul, nul, nul), "descriptors"},
		{"nothing", []byte{}, nil, "malformed"},
	} {
		r := raw(t, ts.sock, c.b, c.oob)
		if r.Decision != "invalid" || !strings.Contains(r.Why, c.want) {
			t.Errorf("%s: %+v, want invalid (%s)", c.name, r, c.want)
		}
	}
	recs, over := d.Records()
	if len(recs) != 0 || over != 0 || ts.runs.Load() != 0 {
		t.Errorf("malformed requests reached the desk: %+v, %d over, %d runs", recs, over, ts.runs.Load())
	}
	if got := ts.Counts().Malformed.Load(); got != 10 {
		t.Errorf("%d malformed counted, want 10", got)
	}
	// A 1 MB reason does not even leave the program.
	if _, _, err := Ask(ts.sock, Message{Access: "read", Path: "/data/in.txt", Reason: strings.Repeat("x", 1<<20)}); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("a 1 MB reason: %v", err)
	}
}

// TestPeerRefused: a process the peer check refuses is answered
// refused before anything it sent is read.
func TestPeerRefused(t *testing.T) {
	d := desk(t, 8)
	ts := serve(t, d, nil)
	var seen atomic.Int64
	ts.Peer = func(pid int) error {
		seen.Store(int64(pid))
		return fmt.Errorf("process %d is not in the agent's container", pid)
	}
	r, conn, err := Ask(ts.sock, Message{Access: "read", Path: "/data/in.txt", Reason: "r"})
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	if r.Decision != "refused" || !strings.Contains(r.Why, "not in the agent's container") || seen.Load() != int64(os.Getpid()) {
		t.Errorf("%+v (peer %d, want %d)", r, seen.Load(), os.Getpid())
	}
	if recs, _ := d.Records(); len(recs) != 0 {
		t.Errorf("a refused peer reached the desk: %+v", recs)
	}
	// SamePIDNamespace: this process is in its own namespace, and a
	// process in another is refused.
	if err := SamePIDNamespace(os.Getpid())(os.Getpid()); err != nil {
		t.Error(err)
	}
	if err := SamePIDNamespace(os.Getpid())(999999999); err == nil {
		t.Error("a process that does not exist passed the check")
	}
}

// TestProgramRunsAGrantedCommand: the program, run as its own process,
// passes its standard descriptors; the host's run writes to the
// caller's stdout and the program exits with the command's status; a
// refused request exits 3 and runs nothing.
func TestProgramRunsAGrantedCommand(t *testing.T) {
	ts := serve(t, desk(t, 8), func(c *Call) Reply {
		fmt.Fprintf(c.Stdio[1], "ran %s in %s\n", strings.Join(c.Command, " "), c.Dir)
		return Reply{Status: 7}
	})
	program := func(args ...string) (int, string, string) {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), clientEnv+"="+ts.sock)
		cmd.Dir = "/tmp"
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), out.String(), errb.String()
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, out.String(), errb.String()
	}
	code, out, errs := program("read", "/data/in.txt", "the task reads it", "--", "cat", "/data/in.txt")
	if code != 7 || out != "ran cat /data/in.txt in /tmp\n" || !strings.Contains(errs, "granted") {
		t.Errorf("granted: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, errs = program("read", "/data/secret.key", "the task reads it", "--", "cat", "/data/secret.key")
	if code != ExitRefused || out != "" || !strings.Contains(errs, "sensitive") {
		t.Errorf("refused: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if code, _, errs = program("read", "/data/in.txt"); code != ExitUsage || !strings.Contains(errs, "usage:") {
		t.Errorf("misuse: exit %d, %q", code, errs)
	}
	if ts.runs.Load() != 1 {
		t.Errorf("%d commands ran, want 1", ts.runs.Load())
	}
}

// TestFlood: 10,000 requests from 8 connections at a time at one run's
// server reach its decider at most Max times and are all answered; a
// second run's server meanwhile answers as fast as when idle (its
// latency is measured and logged).
func TestFlood(t *testing.T) {
	const n, max = 10000, 8
	flooded := serve(t, desk(t, max), nil)
	other := serve(t, desk(t, 1000000), nil)
	idle := latencies(t, other.sock, 50, nil)
	var stop atomic.Bool
	var during []time.Duration
	done := make(chan struct{})
	go func() { during = latencies(t, other.sock, 50, &stop); close(done) }()
	start := time.Now()
	var wg sync.WaitGroup
	var answered, refused atomic.Int64
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 8 {
				r, c, err := Ask(flooded.sock, Message{Access: "read", Path: "/data/in.txt", Reason: "flood"})
				if err != nil {
					t.Error(err)
					return
				}
				c.Close()
				answered.Add(1)
				if r.Decision == runapi.RequestOverLimit {
					refused.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	flood := time.Since(start)
	stop.Store(true)
	<-done
	recs, over := flooded.desk.Records()
	if answered.Load() != n || len(recs) != max || over != n-max || refused.Load() != n-max {
		t.Fatalf("%d answered, %d records, %d over the limit (%d refused as such)", answered.Load(), len(recs), over, refused.Load())
	}
	p := func(d []time.Duration, q float64) time.Duration {
		s := slices.Clone(d)
		slices.Sort(s)
		return s[int(q*float64(len(s)-1))]
	}
	t.Logf("flood of %d requests: %v (%.0f/s); other run's request latency idle p50 %v p99 %v, during the flood p50 %v p99 %v (%d samples)",
		n, flood, float64(n)/flood.Seconds(), p(idle, .5), p(idle, .99), p(during, .5), p(during, .99), len(during))
	if p(during, .5) > 50*time.Millisecond {
		t.Errorf("another run's requests slowed to p50 %v during the flood", p(during, .5))
	}
}

// latencies times requests to sock, count of them, or until stop.
func latencies(t *testing.T, sock string, count int, stop *atomic.Bool) []time.Duration {
	var out []time.Duration
	for i := 0; stop != nil && !stop.Load() || stop == nil && i < count; i++ {
		s := time.Now()
		r, c, err := Ask(sock, Message{Access: "read", Path: "/data/in.txt", Reason: "other run"})
		if err != nil {
			t.Error(err)
			return out
		}
		c.Close()
		out = append(out, time.Since(s))
		if r.Decision != runapi.RequestGranted {
			t.Errorf("the other run: %+v", r)
		}
		time.Sleep(2 * time.Millisecond)
	}
	return out
}
