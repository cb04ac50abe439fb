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

// TestClientWaitFollowsTheKindsStream: Wait follows the file WaitLog
// names for the run's kind (a daemon serves no other), and returns the
// record after it; a scripted daemon answers only that name and counts
// the follows.
func TestClientWaitFollowsTheKindsStream(t *testing.T) {
	for _, c := range []struct {
		req  RunRequest
		want string
	}{
		{RunRequest{Exec: &ExecRequest{Command: []string{"x"}}}, LogStderr},
		{RunRequest{Task: &TaskRequest{Dir: "/t"}}, LogAgentStderr},
		{RunRequest{Generate: &GenerateRequest{Dir: "/t"}}, LogGeneratorStderr},
		{RunRequest{Build: &BuildRequest{}}, LogBuild},
	} {
		kind, _ := c.req.Kind()
		t.Run(string(kind), func(t *testing.T) {
			socket := filepath.Join(t.TempDir(), "d.sock")
			ln, err := net.Listen("unix", socket)
			if err != nil {
				t.Fatal(err)
			}
			var followed atomic.Bool
			mux := http.NewServeMux()
			mux.HandleFunc("GET /v1/runs/{id}", func(w http.ResponseWriter, r *http.Request) {
				run := Run{ID: r.PathValue("id"), State: StateRunning, Request: c.req}
				if followed.Load() {
					run.State = StateSucceeded
				}
				_ = json.NewEncoder(w).Encode(run)
			})
			mux.HandleFunc("GET /v1/runs/{id}/{log}", func(w http.ResponseWriter, r *http.Request) {
				if r.PathValue("log") != c.want || r.URL.Query().Get("follow") != "1" {
					w.WriteHeader(http.StatusNotFound)
					_ = json.NewEncoder(w).Encode(ErrorResponse{Error: "no such file", Allowed: []string{c.want}})
					return
				}
				followed.Store(true)
				_, _ = w.Write([]byte("some output\n"))
			})
			srv := &http.Server{Handler: mux}
			go srv.Serve(ln)
			t.Cleanup(func() { srv.Close() })
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			run, err := NewClient(socket).Wait(ctx, "r1")
			if err != nil {
				t.Fatal(err)
			}
			if !followed.Load() || run.State != StateSucceeded {
				t.Fatalf("followed %v, run %s", followed.Load(), run.State)
			}
			_, err = NewClient(socket).OpenLog(ctx, "r1", "../run.json", false)
			var ae *APIError
			if !asAPIError(err, &ae) || ae.Artifact() == nil || ae.Artifact().Allowed[0] != c.want {
				t.Fatalf("a name the kind does not make: %v", err)
			}
		})
	}
}

func asAPIError(err error, out **APIError) bool {
	ae, ok := err.(*APIError)
	*out = ae
	return ok
}
