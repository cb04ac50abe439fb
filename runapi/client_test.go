package runapi

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// TestDialClientReusesItsConnection checks that the connection DialClient
// makes to find the daemon carries the first request (one connection in
// all), that an unused client's Close closes it, and that a socket
// nobody listens on is an error.
func TestDialClientReusesItsConnection(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "d.sock")
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	var conns atomic.Int32
	closed := make(chan struct{}, 4)
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusOK)
			_ = json.NewEncoder(w).Encode(RunStatus{ID: r.URL.Path, State: StateRunning})
		}),
		ConnState: func(_ net.Conn, s http.ConnState) {
			switch s {
			case http.StateNew:
				conns.Add(1)
			case http.StateClosed:
				closed <- struct{}{}
			}
		},
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	c, err := DialClient(socket, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		run, err := c.GetStatus(context.Background(), "r1")
		if err != nil || run.ID != "/v1/runs/r1" || run.State != StateRunning {
			t.Fatalf("GetStatus = %+v, %v", run, err)
		}
	}
	c.Close()
	if n := conns.Load(); n != 1 {
		t.Fatalf("%d connections for a dial and two requests, want 1", n)
	}
	unused, err := DialClient(socket, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	unused.Close()
	for i := 0; i < 2; i++ { // the first client's, then the unused one's
		select {
		case <-closed:
		case <-time.After(5 * time.Second):
			t.Fatalf("connection %d not closed", i+1)
		}
	}
	if _, err := DialClient(filepath.Join(t.TempDir(), "none.sock"), time.Second); err == nil {
		t.Fatal("DialClient of a socket nobody listens on succeeded")
	}
}

func TestRunStatusView(t *testing.T) {
	code, status := 3, 3
	r := &Run{ID: "x", State: StateFailed, ExitCode: &code, ExitStatus: &status, Error: "e", ErrorKind: "confine",
		StillRunning: []Process{{Pid: 7}}, Plan: nil, CallerUID: 5, Events: 9}
	got := r.Status().Run()
	want := &Run{ID: "x", State: StateFailed, ExitCode: &code, ExitStatus: &status, Error: "e", ErrorKind: "confine",
		StillRunning: []Process{{Pid: 7}}}
	b1, _ := json.Marshal(got)
	b2, _ := json.Marshal(want)
	if string(b1) != string(b2) {
		t.Fatalf("status view of a record:\n got %s\nwant %s", b1, b2)
	}
}

func TestStatusTrailer(t *testing.T) {
	code := 4
	st := RunStatus{ID: "r", State: StateFailed, ExitCode: &code, ExitStatus: &code, Error: "é\nx",
		StillRunning: []Process{{Pid: 2, Comm: "sleep", Cmdline: "sleep\x0030 ünï"}}}
	v, err := EncodeStatusTrailer(st)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range v {
		if c < 0x21 || c > 0x7e {
			t.Fatalf("trailer value %q has %q, not a header-safe byte", v, c)
		}
	}
	got, err := DecodeStatusTrailer(v)
	if err != nil || got.ID != "r" || *got.ExitStatus != 4 || got.Error != st.Error || got.StillRunning[0].Cmdline != st.StillRunning[0].Cmdline {
		t.Fatalf("round trip = %+v, %v", got, err)
	}
	if got, err := DecodeStatusTrailer(""); got != nil || err != nil {
		t.Fatalf("no trailer = %+v, %v; want nil, nil", got, err)
	}
	for _, bad := range []string{"not base64!", "bm90IGpzb24="} {
		if _, err := DecodeStatusTrailer(bad); err == nil {
			t.Errorf("DecodeStatusTrailer(%q) succeeded", bad)
		}
	}
}
