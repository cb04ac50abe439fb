package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/cli/core"
	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/tracer/trace"

	"go.uber.org/zap"

	"github.com/authbench/authbench/daemon"
	"github.com/authbench/authbench/daemon/taskwork"
	"github.com/authbench/authbench/tracer"
)

// serveTestDaemon serves a daemon (with the tracer) in-process on a new
// socket, re-executing bin as sandbox-init.
func serveTestDaemon(t *testing.T, bin string) string {
	t.Helper()
	tr, err := tracer.Load(tracer.Options{}, zap.NewNop())
	testenv.NeedNoError(t, "the eBPF tracer", err)
	t.Cleanup(func() { tr.Close() })
	dir, err := os.MkdirTemp("", "abcli")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	socket := filepath.Join(dir, "d.sock")
	m, err := daemon.NewManager(daemon.Config{StateDir: t.TempDir(), Work: taskwork.New(taskwork.Config{ImagesDir: testenv.ImagesDir(), Tracer: tr}), Self: bin, Tracer: tr, HidePaths: socketHidePaths(socket)})
	if err != nil {
		t.Fatal(err)
	}
	auth, _ := daemon.NewAuthorizer("")
	srv, err := daemon.Listen(m, socket, auth)
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	return socket
}

// runBinary runs the authbench binary with the daemon socket set to
// socket ("" for embedded) and returns exit code, stdout and stderr.
func runBinary(t *testing.T, bin, socket string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), core.SocketEnv+"="+socket)
	return runCmd(t, cmd)
}

// runCmd runs cmd and returns its exit code (-1 if a signal killed it),
// stdout and stderr; an error other than a non-zero exit fails t.
func runCmd(t *testing.T, cmd *exec.Cmd) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// TestExecThroughDaemonMatchesEmbedded: the same confined, traced command
// gives the same output, exit status and denials whether the daemon runs
// it or the CLI does.
func TestExecThroughDaemonMatchesEmbedded(t *testing.T) {
	requireLandlockCLI(t)
	bin := benchBinary(t)
	socket := serveTestDaemon(t, bin)
	dir, err := os.MkdirTemp("/var/tmp", "authbench-remote-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	allowed := writeFile(t, dir, "allowed.txt", "hello\n")
	secret := writeFile(t, dir, "secret.txt", "secret\n")
	pol := writeFile(t, dir, "p.json", `{"read":["`+allowed+`"],"write":[],"execute":["/usr/bin/cat"]}`)
	results := map[string][3]string{}
	for _, mode := range []struct{ name, socket string }{{"embedded", ""}, {"daemon", socket}} {
		traceFile := filepath.Join(dir, mode.name+".jsonl")
		code, out, errOut := runBinary(t, bin, mode.socket, "exec", "--uid", "65534", "--gid", "65534", "--policy", pol,
			"--trace", traceFile, "--", "/bin/sh", "-c", "cat "+allowed+"; cat "+secret)
		denials := strings.ReplaceAll(errOut, traceFile, "EVENTS")
		denials = denials[strings.Index(denials, "authbench: trace:"):]
		results[mode.name] = [3]string{strconv.Itoa(code), out, denials}
		if _, err := os.Stat(traceFile + ".plan.json"); err != nil {
			t.Errorf("%s: plan record missing: %v", mode.name, err)
		}
		events, _ := os.ReadFile(traceFile)
		if !bytes.Contains(events, []byte(`"op":"summary"`)) || !bytes.Contains(events, []byte(secret)) {
			t.Errorf("%s: event log incomplete:\n%s", mode.name, events)
		}
	}
	emb, dmn := results["embedded"], results["daemon"]
	if emb != dmn {
		t.Fatalf("embedded and daemon runs differ:\nembedded: %q\ndaemon:   %q", emb, dmn)
	}
	if emb[0] != "1" || emb[1] != "hello\n" || !strings.Contains(emb[2], "read    open     "+secret+" [EACCES]") {
		t.Fatalf("unexpected result %q", emb)
	}
	code, out, _ := runBinary(t, bin, socket, "runs", "ls")
	if code != 0 || !strings.Contains(out, "/bin/sh -c cat "+allowed) {
		t.Fatalf("runs ls: %d %q", code, out)
	}
}

// TestTraceThroughDaemon: `authbench trace --out` through the daemon
// writes the same accesses as the embedded trace, and an unwritable --out
// is a usage error before anything runs.
func TestTraceThroughDaemon(t *testing.T) {
	bin := benchBinary(t)
	socket := serveTestDaemon(t, bin)
	dir := t.TempDir()
	data := writeFile(t, dir, "data.txt", "x\n")
	accesses := map[string]string{}
	for _, mode := range []struct{ name, socket string }{{"embedded", ""}, {"daemon", socket}} {
		out := filepath.Join(dir, mode.name+".jsonl")
		code, _, errOut := runBinary(t, bin, mode.socket, "trace", "--out", out, "--", "/bin/sh", "-c", "cat "+data+" missing 2>/dev/null; exit 3")
		if code != 3 {
			t.Fatalf("%s: exit %d, want the command's 3 (%s)", mode.name, code, errOut)
		}
		raw, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
			var ev trace.Event
			if strings.HasPrefix(line, `{"op":"summary"`) {
				lines = append(lines, "summary")
				continue
			}
			if err := ev.UnmarshalJSON([]byte(line)); err != nil {
				t.Fatalf("%s: %v: %s", mode.name, err, line)
			}
			if ev.Op == trace.OpOpen || ev.Op == trace.OpExec {
				lines = append(lines, fmt.Sprintf("%s %s %s", ev.Op, ev.Path, ev.Errno))
			}
		}
		accesses[mode.name] = strings.Join(lines, "\n")
	}
	if accesses["embedded"] != accesses["daemon"] || !strings.Contains(accesses["daemon"], "open "+data+" \n") ||
		!strings.HasSuffix(accesses["daemon"], "summary") {
		t.Fatalf("traces differ or are incomplete:\nembedded:\n%s\ndaemon:\n%s", accesses["embedded"], accesses["daemon"])
	}
	runs := func() string {
		_, out, _ := runBinary(t, bin, socket, "--json", "runs", "ls")
		return out
	}
	before := runs()
	code, _, errOut := runBinary(t, bin, socket, "trace", "--out", filepath.Join(dir, "missing", "x.jsonl"), "--", "/bin/true")
	if code != 2 || !strings.Contains(errOut, "--out") {
		t.Fatalf("unwritable --out through the daemon: exit %d, %q", code, errOut)
	}
	if after := runs(); after != before || !strings.Contains(before, "/bin/sh") {
		t.Fatalf("runs changed by a refused trace:\nbefore: %s\nafter:  %s", before, after)
	}
}

// TestSocketHidePaths: a daemon hides its socket, by absolute path, and
// nothing else.
func TestSocketHidePaths(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		socket string
		want   []string
	}{
		{"/run/authbench/authbench.sock", []string{"/run/authbench/authbench.sock"}},
		{"/tmp/d.sock", []string{"/tmp/d.sock"}},
		{"d.sock", []string{filepath.Join(wd, "d.sock")}},
	}
	for _, tc := range tests {
		if got := socketHidePaths(tc.socket); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("socketHidePaths(%q) = %v, want %v", tc.socket, got, tc.want)
		}
	}
}
