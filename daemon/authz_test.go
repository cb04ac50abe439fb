package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// Two unprivileged callers, both members of nogroup (the daemon's group
// in these tests) by their primary group.
const (
	memberA   = 65534
	memberB   = 65533
	nogroupID = 65534
)

func TestOwnersOnly(t *testing.T) {
	requireRoot(t)
	log, logs := observedLog()
	d := startTestDaemon(t, Config{Self: testBinary, Log: log}, "nogroup")
	code, body := rawRequest(t, d.socket, memberA, nogroupID, "POST", "/v1/runs",
		`{"command":["/bin/sleep","30"],"env":["API_KEY=hunter2"]}`)
	if code != http.StatusCreated {
		t.Fatalf("member A submits: HTTP %d %s", code, body)
	}
	var run Run
	if err := json.Unmarshal([]byte(body), &run); err != nil {
		t.Fatal(err)
	}
	if run.CallerUID != memberA || run.CallerGID != nogroupID || run.CallerPID <= 0 {
		t.Fatalf("caller identity not recorded: uid %d gid %d pid %d", run.CallerUID, run.CallerGID, run.CallerPID)
	}
	id := run.ID
	_, missing := rawRequest(t, d.socket, memberB, nogroupID, "GET", "/v1/runs/20260101T000000-0000000000000000", "")
	for _, req := range []struct{ method, path string }{
		{"GET", "/v1/runs/" + id},
		{"GET", "/v1/runs/" + id + "/stdout"},
		{"GET", "/v1/runs/" + id + "/events?follow=1"},
		{"DELETE", "/v1/runs/" + id},
	} {
		code, body := rawRequest(t, d.socket, memberB, nogroupID, req.method, req.path, "")
		if code != http.StatusNotFound || body != missing {
			t.Errorf("member B %s %s: HTTP %d %s; want 404 exactly as for a missing run (%s)", req.method, req.path, code, body, missing)
		}
	}
	code, body = rawRequest(t, d.socket, memberB, nogroupID, "GET", "/v1/runs", "")
	if code != http.StatusOK || strings.Contains(body, id) || strings.Contains(body, "hunter2") {
		t.Errorf("member B lists A's run: HTTP %d %s", code, body)
	}
	if r, err := d.client.Get(context.Background(), id); err != nil || r.State.Terminal() || !containsEnv(r, "API_KEY=hunter2") {
		t.Fatalf("root sees A's run, still running, with its env: %+v %v", r, err)
	}
	code, body = rawRequest(t, d.socket, memberA, nogroupID, "GET", "/v1/runs", "")
	if code != http.StatusOK || !strings.Contains(body, id) || !strings.Contains(body, "API_KEY=hunter2") {
		t.Errorf("owner lists its run with its env: HTTP %d %s", code, body)
	}
	code, body = rawRequest(t, d.socket, memberA, nogroupID, "DELETE", "/v1/runs/"+id, "")
	if code != http.StatusOK || !strings.Contains(body, `"state":"cancelled"`) {
		t.Errorf("owner cancels: HTTP %d %s", code, body)
	}
	for _, e := range logs.All() {
		if line := fmt.Sprint(e.Message, e.ContextMap()); strings.Contains(line, "hunter2") {
			t.Errorf("an env value was logged: %s", line)
		}
	}
	if q := logs.FilterMessage("run queued").All(); len(q) != 1 || fmt.Sprint(q[0].ContextMap()["env"]) != "[API_KEY=<redacted>]" {
		t.Errorf("run queued log: %v", q)
	}
}

func containsEnv(r *Run, kv string) bool {
	for _, e := range r.Request.Env {
		if e == kv {
			return true
		}
	}
	return false
}

func TestRedactEnv(t *testing.T) {
	got := RedactEnv([]string{"API_KEY=hunter2", "EMPTY=", "A=b=c"})
	want := []string{"API_KEY=<redacted>", "EMPTY=<redacted>", "A=<redacted>"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("RedactEnv = %q, want %q", got, want)
	}
	if RedactEnv(nil) != nil {
		t.Fatal("RedactEnv(nil) != nil")
	}
}

func TestClassifyPeer(t *testing.T) {
	const self = 4026531836
	tests := []struct {
		st   peerStatus
		ns   uint64
		rule string
	}{
		{peerStatus{NoNewPrivs: "0", Seccomp: "0"}, self, ""},
		{peerStatus{NoNewPrivs: "1", Seccomp: "0"}, self, RuleNoNewPrivs},
		{peerStatus{NoNewPrivs: "0", Seccomp: "2"}, self, RuleSeccomp},
		{peerStatus{NoNewPrivs: "0", Seccomp: "1"}, self, RuleSeccomp},
		{peerStatus{NoNewPrivs: "0", Seccomp: "0"}, self + 1, RulePIDNamespace},
		{peerStatus{NoNewPrivs: "1", Seccomp: "2"}, self + 1, RuleNoNewPrivs},
	}
	for _, tt := range tests {
		got := classify(tt.st, tt.ns, self)
		if (got == nil) != (tt.rule == "") || (got != nil && got.Rule != tt.rule) {
			t.Errorf("classify(%+v, %d) = %v, want rule %q", tt.st, tt.ns, got, tt.rule)
		}
	}
}

func TestParseStatus(t *testing.T) {
	st, err := parseStatus("Name:\tsh\nNoNewPrivs:\t1\nSeccomp:\t2\nSeccomp_filters:\t1\n")
	if err != nil || st.NoNewPrivs != "1" || st.Seccomp != "2" {
		t.Fatalf("parseStatus = %+v, %v", st, err)
	}
	if _, err := parseStatus("Name:\tsh\nSeccomp:\t0\n"); err == nil {
		t.Fatal("a status without NoNewPrivs must not pass (fail closed)")
	}
}

func TestDecodeGroups(t *testing.T) {
	if got := decodeGroups([]byte{1, 0, 0, 0, 0xfe, 0xff, 0, 0}); len(got) != 2 || got[0] != 1 || got[1] != 65534 {
		t.Fatalf("decodeGroups = %v", got)
	}
}

func TestComponentProblem(t *testing.T) {
	const dir, link, file = 0o040000, 0o120000, 0o100000
	tests := []struct {
		mode, uid uint32
		want      string
	}{
		{dir | 0o755, 0, ""},
		{dir | 0o1755, 0, ""},
		{dir | 0o1777, 0, "writable by group or other"},
		{dir | 0o775, 0, "writable by group or other"},
		{dir | 0o755, 1000, "owned by uid 1000"},
		{link | 0o777, 0, "symlink"},
		{file | 0o644, 0, "not a directory"},
	}
	for _, tt := range tests {
		got := componentProblem(tt.mode, tt.uid)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("componentProblem(%o, %d) = %q, want %q", tt.mode, tt.uid, got, tt.want)
		}
	}
}

func TestUnderAny(t *testing.T) {
	roots := []string{"/srv/tasks", "/opt/suite/"}
	tests := map[string]bool{
		"/srv/tasks": true, "/srv/tasks/a": true, "/opt/suite/x/y": true,
		"/srv/tasksX": false, "/srv": false, "/": false, "/opt/suitex": false,
	}
	for p, want := range tests {
		if got := underAny(p, roots); got != want {
			t.Errorf("underAny(%q) = %v", p, got)
		}
	}
	if underAny("/srv/tasks", nil) {
		t.Error("no trusted roots must trust nothing")
	}
}

// trustedTaskRoot copies the hello-standard fixture into a root-owned,
// not group/other-writable directory under /var/lib (whose every
// component is root-owned and 0755): the trusted root and the task dir.
func trustedTaskRoot(t *testing.T) (root, task string) {
	t.Helper()
	root, err := os.MkdirTemp("/var/lib", "authbench-trusted-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	task = filepath.Join(root, "hello-standard")
	if out, err := exec.Command("cp", "-a", "../tasks/testdata/fixtures/hello-standard", task).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
	for _, p := range []string{root, task} {
		if err := os.Chown(p, 0, 0); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return root, task
}

func taskRequest(dir string) *RunRequest {
	return &RunRequest{Task: &TaskRequest{Dir: dir, PolicySource: "unconstrained", Agent: "oracle"}}
}

func TestTaskRunsNeedATrustedRoot(t *testing.T) {
	requireRoot(t)
	root, task := trustedTaskRoot(t)
	member := Peer{UID: memberA, GID: nogroupID}
	untrusted := copyTaskTo(t, t.TempDir())

	p, err := validate(taskRequest(task), member, []string{root})
	if err != nil {
		t.Fatalf("member, trusted root-owned task dir: %v", err)
	}
	if p.uid == 0 || p.uid != 1000 {
		t.Errorf("the agent runs as the task's user, got uid %d", p.uid)
	}
	wantRefused(t, taskRequest(untrusted), member, []string{root}, RuleTrustedTasks, untrusted)
	wantRefused(t, taskRequest(task), member, nil, RuleTrustedTasks, task)
	// root may use any directory
	if _, err := validate(taskRequest(untrusted), Peer{}, nil); err != nil {
		t.Fatalf("root, untrusted dir: %v", err)
	}

	link := filepath.Join(root, "link")
	if err := os.Symlink(task, link); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, taskRequest(link), member, []string{root}, RuleTaskDirSymlink, link)

	if err := os.Chmod(task, 0o775); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, taskRequest(task), member, []string{root}, RuleTaskDirOwner, task)
	os.Chmod(task, 0o755)
	if err := os.Chown(task, memberA, nogroupID); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, taskRequest(task), member, []string{root}, RuleTaskDirOwner, task)
	// a root-owned task under a member-owned directory inside the root
	sub := filepath.Join(root, "sub")
	os.Chown(task, 0, 0)
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chown(sub, memberA, nogroupID)
	moved := filepath.Join(sub, "hello-standard")
	if err := os.Rename(task, moved); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, taskRequest(moved), member, []string{root}, RuleTaskDirOwner, sub)
}

func copyTaskTo(t *testing.T, dir string) string {
	t.Helper()
	dst := filepath.Join(dir, "hello-standard")
	if out, err := exec.Command("cp", "-a", "../tasks/testdata/fixtures/hello-standard", dst).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
	return dst
}

func wantRefused(t *testing.T, req *RunRequest, peer Peer, trusted []string, rule, path string) {
	t.Helper()
	_, err := validate(req, peer, trusted)
	var fe *ForbiddenError
	if !errors.As(err, &fe) || fe.Rule != rule || !strings.Contains(fe.Reason, path) {
		t.Fatalf("task dir %s: %v; want 403 rule %s naming %s", req.Task.Dir, err, rule, path)
	}
}

// TestTaskRunsOverTheSocket: the refusal reaches a member as 403 with the
// rule, and nothing is loaded from the untrusted directory.
func TestTaskRunsRefusedOverTheSocket(t *testing.T) {
	requireRoot(t)
	d := startTestDaemon(t, Config{Self: testBinary}, "nogroup")
	dir := copyTaskTo(t, shortTempDir(t))
	body, _ := json.Marshal(taskRequest(dir))
	code, resp := rawRequest(t, d.socket, memberA, nogroupID, "POST", "/v1/runs", string(body))
	var er ErrorResponse
	json.Unmarshal([]byte(resp), &er)
	if code != http.StatusForbidden || er.Rule != RuleTrustedTasks {
		t.Fatalf("member, untrusted task dir: HTTP %d %s", code, resp)
	}
}

// observedLog is a zap logger whose entries the test can read.
func observedLog() (*zap.Logger, *observer.ObservedLogs) {
	core, logs := observer.New(zap.InfoLevel)
	return zap.New(core), logs
}

// BenchmarkConnectionIdentity measures what the daemon does once per
// connection: SO_PEERCRED, SO_PEERGROUPS, SO_PEERPIDFD, /proc/PID/status,
// the PID namespace and the pidfd check.
func BenchmarkConnectionIdentity(b *testing.B) {
	dir, err := os.MkdirTemp("", "abb")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ln, err := net.Listen("unix", filepath.Join(dir, "s"))
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("unix", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer client.Close()
	server, err := ln.Accept()
	if err != nil {
		b.Fatal(err)
	}
	defer server.Close()
	identify := peerContexter(zap.NewNop())
	for b.Loop() {
		p, _ := peerFrom(identify(context.Background(), server))
		if p.Refused != nil {
			b.Fatal(p.Refused)
		}
	}
}

// TestSupplementaryGroupFromTheSocket: membership by a supplementary group
// is read from SO_PEERGROUPS at connect time (not from /proc per request).
func TestSupplementaryGroupFromTheSocket(t *testing.T) {
	requireRoot(t)
	d := startTestDaemon(t, Config{}, "nogroup")
	if err := os.Chmod(d.socket, 0o666); err != nil { // let every uid connect, so the daemon must decide
		t.Fatal(err)
	}
	ask := func(groups []uint32) string {
		cmd := exec.Command("/usr/bin/python3", "-c", escapeClient, d.socket, "GET", "/v1/runs", "")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 1, Gid: 1, Groups: groups}}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("client: %v: %s", err, out)
		}
		return string(out)
	}
	if out := ask([]uint32{100, nogroupID}); !strings.HasPrefix(out, "HTTP/1.0 200") {
		t.Fatalf("member by a supplementary group: %s", out)
	}
	if out := ask([]uint32{100}); !strings.HasPrefix(out, "HTTP/1.0 403") || !strings.Contains(out, RuleGroup) {
		t.Fatalf("not a member: %s", out)
	}
}
