package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/authbench/authbench/daemon/metrics"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
)

// testDaemon is a daemon served in-process on a temporary socket.
type testDaemon struct {
	m      *Manager
	srv    *Server
	socket string
	state  string
	client *runapi.Client
}

// startTestDaemon serves a Manager with cfg (StateDir defaults to a temp
// dir) on a new socket; it is shut down when the test ends.
func startTestDaemon(t *testing.T, cfg Config, group string) *testDaemon {
	t.Helper()
	return startTunedTestDaemon(t, cfg, group, func(*Server) {})
}

// startTunedTestDaemon is startTestDaemon with tune applied to the server
// before it serves.
func startTunedTestDaemon(t *testing.T, cfg Config, group string, tune func(*Server)) *testDaemon {
	t.Helper()
	if cfg.StateDir == "" {
		cfg.StateDir = t.TempDir()
	}
	if cfg.Work == nil {
		cfg.Work = testWork
	}
	if cfg.Metrics == nil {
		cfg.Metrics = metrics.New()
	}
	m, err := NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	auth, err := NewAuthorizer(group)
	if err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(shortTempDir(t), "d.sock")
	srv, err := Listen(m, socket, auth)
	if err != nil {
		t.Fatal(err)
	}
	tune(srv)
	go srv.Serve()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	return &testDaemon{m: m, srv: srv, socket: socket, state: cfg.StateDir, client: runapi.NewClient(socket)}
}

// shortTempDir is a temp dir with a short path: unix socket paths are
// limited to 108 bytes.
func shortTempDir(t *testing.T) string {
	t.Helper()
	return openTempDir(t, "", "abd")
}

// openTempDir is a new directory in parent (os.TempDir if "") that every
// uid can enter and read, removed when the test ends.
func openTempDir(t *testing.T, parent, prefix string) string {
	t.Helper()
	dir, err := os.MkdirTemp(parent, prefix)
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func requireRoot(t *testing.T) { t.Helper(); testenv.NeedRoot(t) }

// rawRequestScript sends the request argv[2] argv[3] with body argv[4]
// to the daemon socket argv[1] and prints the status line, headers and
// body; a failed connection prints "CONNECTION-ERROR" and the error.
const rawRequestScript = `
import socket, sys
try:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sys.argv[1])
    body = sys.argv[4].encode()
    s.sendall(("%s %s HTTP/1.0\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % (sys.argv[2], sys.argv[3], len(body))).encode() + body)
    out = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        out += chunk
    sys.stdout.write(out.decode())
except OSError as e:
    sys.stdout.write("CONNECTION-ERROR %s" % e)
`

// rawResponse sends one HTTP request through python3 running with cred,
// so the daemon sees that peer; it returns the raw response.
func rawResponse(t *testing.T, socket string, cred *syscall.Credential, method, path, body string) string {
	t.Helper()
	// Debian's python3, readable by every uid (not a per-user shim).
	const py = "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Fatalf("%s is needed to connect as another uid: %v", py, err)
	}
	cmd := exec.Command(py, "-c", rawRequestScript, socket, method, path, body)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("request as uid %d: %v: %s", cred.Uid, err, out)
	}
	return string(out)
}

// rawRequest sends one HTTP request as uid/gid through python3, so the
// daemon sees that peer; it returns the status code and body.
func rawRequest(t *testing.T, socket string, uid, gid uint32, method, path, body string) (int, string) {
	t.Helper()
	out := rawResponse(t, socket, &syscall.Credential{Uid: uid, Gid: gid, NoSetGroups: true}, method, path, body)
	head, respBody, _ := strings.Cut(out, "\r\n\r\n")
	var code int
	var proto string
	if _, err := fmt.Sscanf(head, "%s %d", &proto, &code); err != nil {
		t.Fatalf("bad response %q", out)
	}
	return code, respBody
}

func TestRefusesCallersOutsideRootAndGroup(t *testing.T) {
	requireRoot(t)
	d := startTestDaemon(t, Config{}, "nogroup")
	if err := os.Chmod(d.socket, 0o666); err != nil { // let every uid connect, so the daemon must refuse
		t.Fatal(err)
	}
	code, body := rawRequest(t, d.socket, 1, 1, "GET", "/v1/runs", "")
	if code != http.StatusForbidden || !strings.Contains(body, `neither root nor a member of group \"nogroup\"`) {
		t.Fatalf("uid 1: HTTP %d %s", code, body)
	}
	code, body = rawRequest(t, d.socket, 65534, 65534, "GET", "/v1/runs", "")
	if code != http.StatusOK {
		t.Fatalf("member of nogroup: HTTP %d %s", code, body)
	}
	code, body = rawRequest(t, d.socket, 65534, 65534, "POST", "/v1/runs", `{"exec":{"command":["/bin/true"],"uid":0,"allow_root":true}}`)
	if code != http.StatusForbidden || !strings.Contains(body, "own uid") {
		t.Fatalf("member asking for root: HTTP %d %s", code, body)
	}
	if n := testCounterValue(t, d, "authbench_api_refused_total"); n < 1 {
		t.Fatalf("refusals not counted: %v", n)
	}
}

func TestMalformedRequestsNameTheField(t *testing.T) {
	requireRoot(t)
	d := startTestDaemon(t, Config{}, "")
	tests := []badFieldCase{
		{`{"exec": {"command": ["/bin/true"], "bogus": 1}}`, "exec.bogus", "unknown field"},
		{`{"exec": {"command": ["/bin/true"]}, "bogus": 1}`, "bogus", "unknown field"},
		{`{"command": ["/bin/true"]}`, "command", "unknown field"},
		{`{"exec": {"command": "true"}}`, "exec.command", "must be []string"},
		{`{"exec": {"command": []}}`, "exec.command", "non-empty"},
		{`{"exec": {"command": ["/bin/true"]}, "timeout_s": -1}`, "timeout_s", "between 0"},
		{`{"exec": {"command": ["/bin/true"]}, "timeout_s": 1e12}`, "timeout_s", "between 0"},
		{`{"exec": {"command": ["/bin/true"], "env": ["NOEQUALS"]}}`, "exec.env[0]", "KEY=VALUE"},
		{`{"exec": {"command": ["/bin/true"], "dir": "relative"}}`, "exec.dir", "absolute"},
		{`{"exec": {"command": ["/bin/true"], "policy": {"read": ["x"], "write": [], "execute": []}}}`, "exec.policy", "read[0]"},
		{`{"exec": {"command": ["/bin/true"], "policy": {"read": [], "write": [], "execute": []}, "baseline": "weird"}}`, "exec.baseline", "default"},
		{`{"exec": {"command": ["/bin/true"]}} {}`, "", "extra data"},
		{`{"exec": {"command": [`, "exec", "malformed JSON"},
		{`{"exec": {"command": ["/bin/true"], "uid": 0}}`, "exec.allow_root", "explicitly"},
		{`{"exec": {"command": ["/bin/true"], "policy": {"read": [], "write": [], "execute": []}, "semantics": "loose"}}`, "exec.semantics", "unknown enforcement semantics"},
		{`{"exec": {"command": ["/bin/true"], "semantics": "published"}}`, "exec.semantics", "need a policy"},
		{`{"exec": {"command": ["/bin/true"], "refuse_symlinks": true}}`, "exec.refuse_symlinks", "needs a policy"},
		{`{}`, "", "names no kind of run"},
		{`{"timeout_s": 5}`, "", "names no kind of run"},
		{`{"exec": {"command": ["/bin/true"]}, "build": {}}`, "build", "one kind of run"},
		{`{"exec": {"command": ["/bin/true"]}, "exec": {"command": ["/bin/false"]}}`, "exec", "given twice"},
	}
	d.wantBadFields(t, tests)
	// The daemon keeps serving.
	if _, err := d.client.List(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// unixHTTPClient is an HTTP client of the daemon socket, for requests the
// API client would not send.
func unixHTTPClient(socket string) *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", socket)
	}}}
}

// badFieldCase is a request body the daemon refuses with a 400 naming
// field, its message containing msg.
type badFieldCase struct{ body, field, msg string }

// wantBadFields posts each case's body and wants its 400.
func (d *testDaemon) wantBadFields(t *testing.T, cases []badFieldCase) {
	t.Helper()
	for _, tt := range cases {
		code, body := d.post(t, tt.body)
		var er runapi.ErrorResponse
		json.Unmarshal([]byte(body), &er)
		if code != http.StatusBadRequest || er.Field != tt.field || !strings.Contains(er.Error, tt.msg) {
			t.Errorf("%s: HTTP %d %s; want 400 field %q containing %q", tt.body, code, body, tt.field, tt.msg)
		}
	}
}

func (d *testDaemon) post(t *testing.T, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, "http://authbench/v1/runs", strings.NewReader(body))
	resp, err := unixHTTPClient(d.socket).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	return resp.StatusCode, buf.String()
}

func TestSocketSafety(t *testing.T) {
	requireRoot(t)
	d := startTestDaemon(t, Config{}, "")
	m2, err := NewManager(Config{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	auth, _ := NewAuthorizer("")
	if _, err := Listen(m2, d.socket, auth); !errors.Is(err, ErrDaemonRunning) {
		t.Fatalf("second daemon on a live socket: %v", err)
	}
	if _, err := d.client.List(context.Background()); err != nil {
		t.Fatalf("first daemon stopped serving: %v", err)
	}
	notSocket := filepath.Join(t.TempDir(), "file.sock")
	os.WriteFile(notSocket, []byte("precious"), 0o644)
	if _, err := Listen(m2, notSocket, auth); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Fatalf("listen over a regular file: %v", err)
	}
	if data, _ := os.ReadFile(notSocket); string(data) != "precious" {
		t.Fatal("the regular file was replaced")
	}
}

// testCounterValue reads one unlabelled metric from GET /metrics.
func testCounterValue(t *testing.T, d *testDaemon, name string) float64 {
	t.Helper()
	resp, err := unixHTTPClient(d.socket).Get("http://authbench/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			var f float64
			fmt.Sscanf(v, "%g", &f)
			return f
		}
	}
	t.Fatalf("metric %s not found in:\n%s", name, data)
	return 0
}

// TestAbsurdLoadIsRefusedAndServed: past MaxActive active runs the daemon
// answers 429 and keeps serving.
func TestAbsurdLoadIsRefusedAndServed(t *testing.T) {
	requireRoot(t)
	d := startTestDaemon(t, Config{Self: testBinary, MaxActive: 3, MaxConcurrent: 1}, "")
	ctx := context.Background()
	req := &runapi.RunRequest{Exec: &runapi.ExecRequest{Command: []string{"/bin/sleep", "5"}, UID: uid(65534), GID: uid(65534)}}
	var ids []string
	for i := 0; i < 3; i++ {
		run, err := d.client.Submit(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, run.ID)
	}
	_, err := d.client.Submit(ctx, req)
	var ae *runapi.APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusTooManyRequests {
		t.Fatalf("fourth active run: %v", err)
	}
	if run, err := d.client.Get(ctx, ids[2]); err != nil || run.State != runapi.StateQueued {
		t.Fatalf("third run should wait queued behind MaxConcurrent=1: %+v %v", run, err)
	}
	for _, id := range ids {
		if _, err := d.client.Cancel(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.client.Submit(ctx, &runapi.RunRequest{Exec: &runapi.ExecRequest{Command: []string{"/bin/true"}, UID: uid(65534), GID: uid(65534)}}); err != nil {
		t.Fatalf("daemon stopped serving: %v", err)
	}
}

// TestRunsCarryPlanChoices: the semantics and the symlink refusal of a
// request reach the plan the run is confined by, and the record says so.
func TestRunsCarryPlanChoices(t *testing.T) {
	requireRoot(t)
	d := startTestDaemon(t, Config{}, "")
	dir := t.TempDir()
	if err := os.Symlink("/etc/hostname", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	pol := json.RawMessage(`{"read": ["` + dir + `/link"], "write": [], "execute": ["/usr/bin/true"]}`)
	ctx := context.Background()
	run, err := d.client.Submit(ctx, &runapi.RunRequest{Exec: &runapi.ExecRequest{Command: []string{"/usr/bin/true"}, Policy: pol, Semantics: "published", UID: uid(65534), GID: uid(65534)}})
	if err != nil {
		t.Fatal(err)
	}
	final, err := d.client.Wait(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if final.Plan == nil || final.Plan.Semantics != policy.SemanticsPublished {
		t.Fatalf("plan %+v, want published semantics", final.Plan)
	}
	run, err = d.client.Submit(ctx, &runapi.RunRequest{Exec: &runapi.ExecRequest{Command: []string{"/usr/bin/true"}, Policy: pol, RefuseSymlinks: true, UID: uid(65534), GID: uid(65534)}})
	if err != nil {
		t.Fatal(err)
	}
	if final, err = d.client.Wait(ctx, run.ID); err != nil {
		t.Fatal(err)
	}
	if final.State != runapi.StateFailed || !strings.Contains(final.Error, "link") {
		t.Fatalf("symlinked target with refuse_symlinks: state %s, error %q; want failed naming the link", final.State, final.Error)
	}
}
