package daemon

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap/zaptest/observer"

	"github.com/authbench/authbench/internal/testenv"
)

// escapeClient is a tiny HTTP/1.0 client on a unix socket: it prints the
// response, or "CONNECTION-REFUSED <error>" when the daemon does not
// answer.
const escapeClient = `
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
    sys.stdout.write("CONNECTION-REFUSED %s" % e)
`

// confinedRequest sends one request from a tree confined by the built
// authbench binary (exec: Landlock, no_new_privs, seccomp) running as
// uid/gid, the way an agent under a policy would try the daemon.
func confinedRequest(t *testing.T, socket string, uid, gid int, method, path, body string) (int, string) {
	t.Helper()
	dir := shortTempDir(t)
	pol := filepath.Join(dir, "p.json")
	if err := os.WriteFile(pol, []byte(`{"read":[],"write":[],"execute":["/usr/bin"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(testenv.Authbench(t), "exec", "--policy", pol, "--uid", fmt.Sprint(uid), "--gid", fmt.Sprint(gid),
		"--", "/usr/bin/python3", "-c", escapeClient, socket, method, path, body)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("confined client as uid %d: %v: %s", uid, err, out)
	}
	if strings.HasPrefix(string(out), "CONNECTION-REFUSED") {
		return 0, string(out)
	}
	head, respBody, _ := strings.Cut(string(out), "\r\n\r\n")
	var code int
	var proto string
	if _, err := fmt.Sscanf(head, "%s %d", &proto, &code); err != nil {
		t.Fatalf("bad response %q", out)
	}
	return code, respBody
}

// unconfinedRootRun is the confused-deputy request: an unconfined run as
// root.
const unconfinedRootRun = `{"command":["/bin/true"],"uid":0,"gid":0,"allow_root":true,"no_seccomp":true}`

func TestEscapeDaemonConfinedRootIsRefused(t *testing.T) {
	requireRoot(t)
	log, logs := observedLog()
	d := startTestDaemon(t, Config{Self: testBinary, Log: log}, "nogroup")
	code, body := confinedRequest(t, d.socket, 0, 0, "POST", "/v1/runs", unconfinedRootRun)
	wantConfinedRefusal(t, code, body, logs, 0)
	if runs, _ := d.m.List(); len(runs) != 0 {
		t.Fatalf("a confined root tree got runs: %+v", runs)
	}
}

func TestEscapeDaemonConfinedGroupMemberIsRefused(t *testing.T) {
	requireRoot(t)
	log, logs := observedLog()
	d := startTestDaemon(t, Config{Self: testBinary, Log: log}, "nogroup")
	// Unconfined, this uid (primary group: the daemon's) is a member.
	if code, body := rawRequest(t, d.socket, memberB, nogroupID, "GET", "/v1/runs", ""); code != http.StatusOK {
		t.Fatalf("unconfined member: HTTP %d %s", code, body)
	}
	code, body := confinedRequest(t, d.socket, memberB, nogroupID, "POST", "/v1/runs", `{"command":["/bin/true"],"no_seccomp":true}`)
	wantConfinedRefusal(t, code, body, logs, memberB)
	code, body = confinedRequest(t, d.socket, memberB, nogroupID, "GET", "/v1/runs", "")
	if code != http.StatusForbidden {
		t.Fatalf("confined member lists runs: HTTP %d %s", code, body)
	}
	if runs, _ := d.m.List(); len(runs) != 0 {
		t.Fatalf("a confined member got runs: %+v", runs)
	}
}

// wantConfinedRefusal checks a 403 naming a confinement rule, and that the
// daemon logged the refusal once with the peer's uid and pid.
func wantConfinedRefusal(t *testing.T, code int, body string, logs *observer.ObservedLogs, uid uint32) {
	t.Helper()
	var er ErrorResponse
	json.Unmarshal([]byte(body), &er)
	if code != http.StatusForbidden || er.Rule != RuleNoNewPrivs {
		t.Fatalf("confined uid %d: HTTP %d %s; want 403 rule %s", uid, code, body, RuleNoNewPrivs)
	}
	refused := logs.FilterMessage("connection refused").All()
	if len(refused) != 1 {
		t.Fatalf("want the refusal logged once, got %d entries", len(refused))
	}
	f := refused[0].ContextMap()
	if f["rule"] != RuleNoNewPrivs || fmt.Sprint(f["uid"]) != fmt.Sprint(uid) || fmt.Sprint(f["pid"]) == "0" {
		t.Fatalf("refusal log fields: %v", f)
	}
}

// TestEscapeDaemonNestedExecStaysConfined: with no daemon to ask, a
// confined tree that runs authbench exec with an allow-all policy still
// cannot read what its outer policy denied: Landlock domains nest.
func TestEscapeDaemonNestedExecStaysConfined(t *testing.T) {
	requireRoot(t)
	bin := testenv.Authbench(t)
	dir, err := os.MkdirTemp("/var/lib", "authbench-escape-") // the default baseline allows /tmp
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	secret := filepath.Join(dir, "secret.txt")
	if err := os.WriteFile(secret, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	outer := filepath.Join(dir, "outer.json")
	inner := filepath.Join(dir, "inner.json")
	os.WriteFile(outer, []byte(`{"read":["`+inner+`"],"write":[],"execute":["/usr/bin","`+bin+`"]}`), 0o644)
	os.WriteFile(inner, []byte(`{"read":["/"],"write":["/"],"execute":["/"]}`), 0o644)
	// The outer policy denies the secret.
	out, err := exec.Command(bin, "exec", "--policy", outer, "--uid", "0", "--gid", "0", "--", "/usr/bin/cat", secret).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Permission denied") {
		t.Fatalf("outer policy alone: %v: %s", err, out)
	}
	// The inner exec works and cat runs: only the secret is denied.
	out, err = exec.Command(bin, "exec", "--policy", outer, "--uid", "0", "--gid", "0", "--",
		bin, "exec", "--policy", inner, "--", "/usr/bin/cat", inner).CombinedOutput()
	if err != nil || !strings.Contains(string(out), `"read":["/"]`) {
		t.Fatalf("nested exec reading an allowed file: %v: %s", err, out)
	}
	out, err = exec.Command(bin, "exec", "--policy", outer, "--uid", "0", "--gid", "0", "--",
		bin, "exec", "--policy", inner, "--", "/usr/bin/cat", secret).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Permission denied") {
		t.Fatalf("nested allow-all exec read what the outer policy denied: %v: %s", err, out)
	}
}

// TestEscapeDaemonOtherPIDNamespaceIsRefused: a process in another PID
// namespace (every daemon run and task container has its own) is refused
// even without no_new_privs or seccomp, e.g. a container's root.
func TestEscapeDaemonOtherPIDNamespaceIsRefused(t *testing.T) {
	requireRoot(t)
	testenv.NeedTools(t, "unshare")
	log, logs := observedLog()
	d := startTestDaemon(t, Config{Self: testBinary, Log: log}, "")
	out, err := exec.Command("unshare", "--pid", "--fork", "--", "/usr/bin/python3", "-c", escapeClient,
		d.socket, "POST", "/v1/runs", unconfinedRootRun).CombinedOutput()
	if err != nil {
		t.Fatalf("unshare: %v: %s", err, out)
	}
	_, body, _ := strings.Cut(string(out), "\r\n\r\n")
	var er ErrorResponse
	json.Unmarshal([]byte(body), &er)
	if !strings.HasPrefix(string(out), "HTTP/1.0 403") || er.Rule != RulePIDNamespace {
		t.Fatalf("root in another PID namespace: %s", out)
	}
	if n := len(logs.FilterMessage("connection refused").All()); n != 1 {
		t.Fatalf("refusal logged %d times", n)
	}
}
