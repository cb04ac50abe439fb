package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/authbench/authbench/runapi"
)

// dialAsUID connects to socket with effective uid euid: only the dialling
// thread changes identity (raw setresuid), and it is thrown away after.
func dialAsUID(t *testing.T, socket string, euid uint32) net.Conn {
	t.Helper()
	type result struct {
		c   net.Conn
		err error
	}
	got := make(chan result, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		if _, _, e := syscall.RawSyscall(syscall.SYS_SETRESUID, ^uintptr(0), uintptr(euid), ^uintptr(0)); e != 0 {
			got <- result{err: fmt.Errorf("setresuid: %w", e)}
			return
		}
		c, err := net.Dial("unix", socket)
		got <- result{c, err}
	}()
	r := <-got
	if r.err != nil {
		t.Fatal(r.err)
	}
	t.Cleanup(func() { r.c.Close() })
	return r.c
}

// readRawAnswer reads the status line of the answer on c (or fails after
// timeout: a connection the daemon neither answers nor closes).
func readRawAnswer(t *testing.T, c net.Conn, timeout time.Duration) (string, error) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(timeout))
	data, err := io.ReadAll(c)
	if len(data) == 0 && err != nil {
		return "", err
	}
	return string(data), nil
}

// TestConnectionLimitPerUID: a non-root uid gets a 429 (with the reason)
// beyond its connection limit, at accept time, and its place back when a
// connection closes; root is not limited.
func TestConnectionLimitPerUID(t *testing.T) {
	requireRoot(t)
	d := startTestDaemon(t, Config{MaxConnsPerUID: 3}, "")
	if err := os.Chmod(d.socket, 0o666); err != nil {
		t.Fatal(err)
	}
	held := []net.Conn{dialAsUID(t, d.socket, 65534), dialAsUID(t, d.socket, 65534), dialAsUID(t, d.socket, 65534)}
	time.Sleep(100 * time.Millisecond) // let the daemon accept them (they send nothing)
	over := dialAsUID(t, d.socket, 65534)
	resp, err := readRawAnswer(t, over, 5*time.Second)
	if err != nil {
		t.Fatalf("4th connection of uid 65534 was neither refused nor closed: %v", err)
	}
	if !strings.HasPrefix(resp, "HTTP/1.1 429 ") || !strings.Contains(resp, `"error":"too many connections: uid 65534 already holds 3 connections`) {
		t.Fatalf("4th connection: %q", resp)
	}
	// Root still gets through, with many connections of its own.
	for i := 0; i < 5; i++ {
		dialAsUID(t, d.socket, 0)
	}
	if _, err := d.client.List(context.Background()); err != nil {
		t.Fatalf("root refused: %v", err)
	}
	held[0].Close()
	time.Sleep(100 * time.Millisecond)
	again := dialAsUID(t, d.socket, 65534)
	fmt.Fprintf(again, "GET /healthz HTTP/1.0\r\n\r\n")
	resp, err = readRawAnswer(t, again, 5*time.Second)
	if err != nil || !strings.HasPrefix(resp, "HTTP/1.0 403 ") { // admitted, then refused by authorisation
		t.Fatalf("after a close, a new connection of uid 65534: %q %v", resp, err)
	}
	if n := testCounterValue(t, d, "authbench_api_connections_refused_total"); n != 1 {
		t.Fatalf("refused connections counted %v, want 1", n)
	}
}

// TestNonRootConnectionCapKeepsRootsReserve: the cap of all non-root
// connections leaves descriptors to root.
func TestNonRootConnectionCapKeepsRootsReserve(t *testing.T) {
	tests := []struct {
		limit uint64
		want  int
	}{
		{20000, 20000 - 2500},
		{1 << 20, 1<<20 - 1<<17},
		{1024, 1024 - 256},
		{300, 150},
	}
	for _, tt := range tests {
		if got := nonRootConnCap(tt.limit); got != tt.want {
			t.Errorf("nonRootConnCap(%d) = %d, want %d", tt.limit, got, tt.want)
		}
	}
}

// startShortTimeoutDaemon is startTestDaemon with the connection timeouts
// shortened to timeout.
func startShortTimeoutDaemon(t *testing.T, cfg Config, timeout time.Duration) *testDaemon {
	t.Helper()
	cfg.StateDir = ""
	return startTunedTestDaemon(t, cfg, "", func(srv *Server) {
		srv.http.ReadTimeout, srv.http.ReadHeaderTimeout, srv.http.IdleTimeout = timeout, timeout, timeout
		srv.writeTimeout = timeout
	})
}

// TestHalfSentBodyIsDropped: a request whose body never comes in full
// does not hold its connection (the daemon answers and closes it), while
// following a log outlives every connection timeout.
func TestHalfSentBodyIsDropped(t *testing.T) {
	requireRoot(t)
	d := startShortTimeoutDaemon(t, Config{Self: testBinary}, 300*time.Millisecond)
	c, err := net.Dial("unix", d.socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /v1/runs HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"exec\":{\"command\":")
	if _, err := readRawAnswer(t, c, 10*time.Second); err != nil {
		t.Fatalf("half-sent body: connection still held: %v", err)
	}

	run, err := d.client.Submit(context.Background(), &runapi.RunRequest{Exec: &runapi.ExecRequest{Command: []string{"sh", "-c", "echo first; sleep 1.5; echo second"}, UID: uid(65534), GID: uid(65534)}})
	if err != nil {
		t.Fatal(err)
	}
	rc, err := d.client.OpenLog(context.Background(), run.ID, "stdout", true)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	got, err := io.ReadAll(bufio.NewReader(rc))
	if err != nil || string(got) != "first\nsecond\n" {
		t.Fatalf("followed stdout %q, %v", got, err)
	}
}

// TestPerUIDRunQuota: a non-root caller cannot hold more than its quota
// of active runs (429 naming the quota); root and other uids still can.
func TestPerUIDRunQuota(t *testing.T) {
	requireRoot(t)
	d := startTestDaemon(t, Config{Self: testBinary, MaxActivePerUID: 2}, "")
	member := Peer{PID: int32(os.Getpid()), UID: 65534, GID: 65534}
	sleep := &runapi.RunRequest{Exec: &runapi.ExecRequest{Command: []string{"sleep", "30"}}}
	for i := 0; i < 2; i++ {
		if _, err := d.m.Submit(sleep, member); err != nil {
			t.Fatalf("run %d within the quota: %v", i, err)
		}
	}
	_, err := d.m.Submit(sleep, member)
	var qe *QuotaError
	if !errors.As(err, &qe) || httpStatus(err) != http.StatusTooManyRequests || !strings.Contains(err.Error(), "per-uid quota is 2") {
		t.Fatalf("3rd run: %v (HTTP %d)", err, httpStatus(err))
	}
	other := Peer{PID: int32(os.Getpid()), UID: 1, GID: 1}
	if _, err := d.m.Submit(sleep, other); err != nil {
		t.Fatalf("another uid: %v", err)
	}
	for i := 0; i < 3; i++ {
		if _, err := d.client.Submit(context.Background(), &runapi.RunRequest{Exec: &runapi.ExecRequest{Command: []string{"sleep", "30"}, UID: uid(65534), GID: uid(65534)}}); err != nil {
			t.Fatalf("root's run %d: %v", i, err)
		}
	}
	if n := testCounterValue(t, d, "authbench_runs_refused_quota_total"); n != 1 {
		t.Fatalf("quota refusals counted %v, want 1", n)
	}
}

// TestOutputBeyondTheCapIsDroppedAndCounted: the stored output stops at
// the cap with a marker, the record counts what was dropped, and the tree
// never notices (it exits 0).
func TestOutputBeyondTheCapIsDroppedAndCounted(t *testing.T) {
	requireRoot(t)
	d := startTestDaemon(t, Config{Self: testBinary, MaxOutputBytes: 1000}, "")
	run := submitAndWait(t, d.client, &runapi.RunRequest{Exec: &runapi.ExecRequest{Command: []string{"sh", "-c", "head -c 5000 /dev/zero | tr '\\0' x && echo small >&2"}, UID: uid(65534), GID: uid(65534)}})
	if run.State != runapi.StateSucceeded || run.StdoutDroppedBytes != 4000 || run.StderrDroppedBytes != 0 {
		t.Fatalf("run = %+v", run)
	}
	want := strings.Repeat("x", 1000) + "\n[authbench: output truncated after 1000 bytes; 4000 bytes dropped]\n"
	if got := readLog(t, d.client, run.ID, "stdout"); got != want {
		t.Fatalf("stdout (%d bytes) ends %q", len(got), got[max(0, len(got)-80):])
	}
	if got := readLog(t, d.client, run.ID, "stderr"); got != "small\n" {
		t.Fatalf("stderr %q", got)
	}
	if n := testCounterValue(t, d, "authbench_output_dropped_bytes_total"); n != 4000 {
		t.Fatalf("dropped bytes counted %v", n)
	}
}

// TestEventsBeyondTheCapAreCountedAsLost: a traced run's event log stops
// at the cap with a truncation line before the summary, and the record
// counts the events not stored as lost.
func TestEventsBeyondTheCapAreCountedAsLost(t *testing.T) {
	tr := testTracer(t)
	d := startTestDaemon(t, Config{Self: testBinary, Tracer: tr, MaxOutputBytes: 4000}, "")
	run := submitAndWait(t, d.client, &runapi.RunRequest{Exec: &runapi.ExecRequest{Command: []string{"sh", "-c", "for i in $(seq 200); do cat /etc/hostname; done >/dev/null"}, Trace: true, UID: uid(65534), GID: uid(65534)}})
	if run.State != runapi.StateSucceeded {
		t.Fatalf("run = %+v", run)
	}
	log := readLog(t, d.client, run.ID, "events")
	lines := strings.Split(strings.TrimSuffix(log, "\n"), "\n")
	if len(lines) < 3 {
		t.Fatalf("event log: %q", log)
	}
	var truncated struct {
		Op      string `json:"op"`
		After   int64  `json:"after_bytes"`
		Dropped uint64 `json:"dropped_events"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-2]), &truncated); err != nil || truncated.Op != "truncated" {
		t.Fatalf("line before the summary: %q (%v)", lines[len(lines)-2], err)
	}
	stored := int64(len(strings.Join(lines[:len(lines)-2], "\n")) + 1)
	if truncated.After != stored || stored > 4000 || truncated.Dropped == 0 {
		t.Fatalf("truncation line %+v; %d bytes stored", truncated, stored)
	}
	if run.LostEvents < truncated.Dropped || run.Events < truncated.Dropped {
		t.Fatalf("record: events %d, lost %d; %d not stored", run.Events, run.LostEvents, truncated.Dropped)
	}
	var summary struct {
		Op            string `json:"op"`
		Lost, Dropped uint64
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &summary); err != nil || summary.Op != "summary" ||
		summary.Dropped != truncated.Dropped || summary.Lost < truncated.Dropped || summary.Lost != run.LostEvents {
		t.Fatalf("last line %q: want lost %d (the record's), dropped %d", lines[len(lines)-1], run.LostEvents, truncated.Dropped)
	}
}

// TestNonRootConnectionsShareACap: beyond the cap of all non-root
// connections every non-root uid is refused, root never; a released
// connection makes room again.
func TestNonRootConnectionsShareACap(t *testing.T) {
	l := newConnLimiter(nil, 2, 5, noMetrics{}, nil)
	admitted := 0
	for u := uint32(1); u <= 4; u++ {
		for i := 0; i < 2; i++ {
			if l.admit(Peer{UID: u}) == "" {
				admitted++
			}
		}
	}
	if admitted != 5 {
		t.Fatalf("%d non-root connections admitted, want 5", admitted)
	}
	if reason := l.admit(Peer{UID: 9}); !strings.Contains(reason, "5 connections of non-root users") {
		t.Fatalf("over the cap: %q", reason)
	}
	for i := 0; i < 100; i++ {
		if reason := l.admit(Peer{UID: 0}); reason != "" {
			t.Fatalf("root refused: %s", reason)
		}
	}
	l.release(1)
	if reason := l.admit(Peer{UID: 9}); reason != "" {
		t.Fatalf("after a release: %q", reason)
	}
}
