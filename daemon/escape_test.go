package daemon

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/sandbox"
)

// escapeDir is a directory every uid can enter and read, outside /tmp's
// per-test dirs (the confined trees' policies name it).
func escapeDir(t *testing.T) string {
	t.Helper()
	return openTempDir(t, "/var/tmp", "authbench-escape-")
}

func writeTestFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// runConfined runs args under `authbench exec --policy pol --uid --gid`
// (embedded: no daemon socket for the CLI) and returns its output. The
// tree may make unix sockets (--allow-unix-connect: below Landlock ABI 9
// a confined tree otherwise may not), so that what these tests see is
// the daemon's own refusal of a confined peer.
func runConfined(t *testing.T, pol string, uid, gid int, args ...string) (int, string) {
	t.Helper()
	full := append([]string{"exec", "--policy", pol, "--uid", strconv.Itoa(uid), "--gid", strconv.Itoa(gid),
		"--allow-unix-connect", "--"}, args...)
	cmd := exec.Command(testenv.Authbench(t), full...)
	cmd.Env = append(os.Environ(), "AUTHBENCH_SOCKET=")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String()
}

// TestEscapeDaemonConfinedTreeIsRefused: a tree confined by authbench
// (Landlock ABI < 9 cannot keep it from connecting to the daemon's
// socket) asks the daemon for an unconfined run, as root and as a
// non-root member of the daemon's group: both are refused with 403 and
// the rule, the daemon logs the rule with the peer's uid and pid, and no
// run is created. On the old daemon both got 201 and an unconfined run.
func TestEscapeDaemonConfinedTreeIsRefused(t *testing.T) {
	requireRoot(t)
	testenv.Need(t, "Landlock", sandbox.KernelLandlockABI() > 0)
	core, logs := observer.New(zapcore.WarnLevel)
	d := startTestDaemon(t, Config{Self: testBinary, Log: zap.New(core)}, "nogroup")
	dir := escapeDir(t)
	pol := writeTestFile(t, dir, "p.json", `{"read":["/usr","/etc"],"write":[],"execute":["/usr/bin/python3"]}`)
	tests := []struct {
		name     string
		uid, gid int
		body     string
	}{
		{"root", 0, 0, `{"exec":{"command":["/bin/id"],"uid":0,"gid":0,"allow_root":true,"no_seccomp":true}}`},
		{"member by primary group", 65534, 65534, `{"exec":{"command":["/bin/id"],"no_seccomp":true}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out := runConfined(t, pol, tt.uid, tt.gid, "/usr/bin/python3", "-c", rawRequestScript, d.socket, "POST", "/v1/runs", tt.body)
			if code != 0 {
				t.Fatalf("confined client: exit %d: %s", code, out)
			}
			head, body, _ := strings.Cut(out, "\r\n\r\n")
			if !strings.HasPrefix(head, "HTTP/1.0 403") && !strings.HasPrefix(head, "HTTP/1.1 403") {
				t.Fatalf("confined uid %d was not refused:\n%s", tt.uid, out)
			}
			var er runapi.ErrorResponse
			if err := json.Unmarshal([]byte(body), &er); err != nil || er.Rule != RuleConfinedNoNewPrivs {
				t.Fatalf("refusal should name rule %q: %s (%v)", RuleConfinedNoNewPrivs, body, err)
			}
			found := false
			for _, e := range logs.FilterMessage("connection refused").All() {
				f := e.ContextMap()
				if f["rule"] == RuleConfinedNoNewPrivs && f["uid"] == uint32(tt.uid) && f["pid"] != int32(0) {
					found = true
				}
			}
			if !found {
				t.Fatalf("no refusal logged with the rule, uid %d and pid: %v", tt.uid, logs.All())
			}
		})
	}
	runs, err := d.m.List()
	if err != nil || len(runs) != 0 {
		t.Fatalf("confined trees created runs: %v %v", runs, err)
	}
	// The same client, unconfined, is served (the refusal is the
	// confinement, not the client).
	code, body := rawRequest(t, d.socket, 65534, 65534, "GET", "/v1/runs", "")
	if code != http.StatusOK {
		t.Fatalf("unconfined member: HTTP %d %s", code, body)
	}
}

// TestEscapeDaemonNestedExecStaysConfined: with no daemon listening, a
// confined tree that runs authbench exec itself with an allow-all policy
// still cannot read a file its outer policy denied (Landlock domains
// nest: an inner policy only narrows).
func TestEscapeDaemonNestedExecStaysConfined(t *testing.T) {
	requireRoot(t)
	testenv.Need(t, "Landlock", sandbox.KernelLandlockABI() > 0)
	bin := testenv.Authbench(t)
	dir := escapeDir(t)
	secret := writeTestFile(t, dir, "secret.txt", "the secret\n")
	allowed := writeTestFile(t, dir, "allowed.txt", "allowed\n")
	outer := writeTestFile(t, dir, "outer.json", `{"read":["/usr","/etc","/proc","`+allowed+`","`+bin+`","`+dir+`/inner.json"],"write":[],"execute":["/usr/bin/cat","`+bin+`"]}`)
	inner := writeTestFile(t, dir, "inner.json", `{"read":["/"],"write":["/"],"execute":["/"]}`)
	code, out := runConfined(t, outer, 0, 0, bin, "exec", "--policy", inner, "--", "/bin/sh", "-c", "cat "+allowed+"; cat "+secret)
	if strings.Contains(out, "the secret") {
		t.Fatalf("the nested allow-all exec read the file the outer policy denies:\n%s", out)
	}
	if !strings.Contains(out, "allowed\n") || code == 0 {
		t.Fatalf("the nested exec should run, read the allowed file and fail on the secret: exit %d:\n%s", code, out)
	}
}

// TestEscapeDaemonOtherPIDNamespaceIsRefused: a root process without
// no_new_privs or seccomp but in its own PID namespace (as every daemon
// run and task container is) is refused.
func TestEscapeDaemonOtherPIDNamespaceIsRefused(t *testing.T) {
	requireRoot(t)
	testenv.NeedTools(t, "unshare")
	d := startTestDaemon(t, Config{}, "")
	cmd := exec.Command("unshare", "--pid", "--fork", "/usr/bin/python3", "-c", rawRequestScript, d.socket, "POST", "/v1/runs", `{"exec":{"command":["/bin/true"],"allow_root":true}}`)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	_, body, _ := strings.Cut(string(out), "\r\n\r\n")
	var er runapi.ErrorResponse
	if err := json.Unmarshal([]byte(body), &er); err != nil || er.Rule != RuleForeignPIDNamespace {
		t.Fatalf("want a refusal with rule %q, got: %s", RuleForeignPIDNamespace, out)
	}
}

func TestParseConfinement(t *testing.T) {
	tests := []struct {
		status string
		want   confinement
		ok     bool
	}{
		{"Name:\tsh\nNoNewPrivs:\t0\nSeccomp:\t0\nSeccomp_filters:\t0\n", confinement{}, true},
		{"NoNewPrivs:\t1\nSeccomp:\t0\n", confinement{NoNewPrivs: true}, true},
		{"NoNewPrivs:\t0\nSeccomp:\t2\n", confinement{Seccomp: 2}, true},
		{"NoNewPrivs:\t0\n", confinement{}, false},
		{"Seccomp:\t0\n", confinement{}, false},
		{"NoNewPrivs:\tx\nSeccomp:\t0\n", confinement{}, false},
	}
	for _, tt := range tests {
		got, err := parseConfinement(tt.status)
		if (err == nil) != tt.ok || tt.ok && got != tt.want {
			t.Errorf("%q: got %+v, %v; want %+v ok=%v", tt.status, got, err, tt.want, tt.ok)
		}
	}
}

// TestSupplementaryGroupMemberIsServed: membership by a supplementary
// group comes from SO_PEERGROUPS (not /proc, read per request before),
// and a peer without it is refused with the rule.
func TestSupplementaryGroupMemberIsServed(t *testing.T) {
	requireRoot(t)
	d := startTestDaemon(t, Config{}, "nogroup")
	get := func(groups []uint32) string {
		return rawResponse(t, d.socket, &syscall.Credential{Uid: 4321, Gid: 4321, Groups: groups}, "GET", "/v1/runs", "")
	}
	os.Chmod(d.socket, 0o666)
	if out := get([]uint32{100, 65534}); !strings.HasPrefix(out, "HTTP/1.0 200") {
		t.Fatalf("member by a supplementary group refused:\n%s", out)
	}
	if out := get([]uint32{100}); !strings.HasPrefix(out, "HTTP/1.0 403") || !strings.Contains(out, `"rule":"`+RuleNotMember+`"`) {
		t.Fatalf("non-member served:\n%s", out)
	}
}
