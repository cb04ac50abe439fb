package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tracer/trace"

	"go.uber.org/zap"

	"github.com/authbench/authbench/tracer"
)

var (
	sharedTracerOnce sync.Once
	sharedTracer     *tracer.Tracer
	sharedTracerErr  error
)

// testTracer loads the eBPF tracer once for all tests of the package;
// under CI a missing BPF feature fails the test.
func testTracer(t *testing.T) *tracer.Tracer {
	t.Helper()
	requireRoot(t)
	sharedTracerOnce.Do(func() { sharedTracer, sharedTracerErr = tracer.Load(tracer.Options{}, zap.NewNop()) })
	testenv.NeedNoError(t, "the eBPF tracer", sharedTracerErr)
	return sharedTracer
}

// fileTree makes a directory outside /tmp (which the default baseline
// opens) holding the named files, readable by everyone.
func fileTree(t *testing.T, names ...string) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "abrun")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(n+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func policyJSON(read ...string) json.RawMessage {
	data, _ := json.Marshal(map[string][]string{"read": read, "write": {}, "execute": {"/usr/bin/cat", "/usr/bin/sh", "/usr/bin/dash", "/usr/bin/sleep"}})
	return data
}

func uid(n uint32) *uint32 { return &n }

func submitAndWait(t *testing.T, api runapi.API, req *runapi.RunRequest) *runapi.Run {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run, err := api.Submit(ctx, req)
	if err != nil {
		t.Fatalf("submit %v: %v", req.Exec.Command, err)
	}
	final, err := api.Wait(ctx, run.ID)
	if err != nil {
		t.Fatalf("wait %s: %v", run.ID, err)
	}
	return final
}

func readLog(t *testing.T, api runapi.API, id, log string) string {
	t.Helper()
	rc, err := api.OpenLog(context.Background(), id, log, false)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestRunRecordsExitAndOutput(t *testing.T) {
	requireRoot(t)
	d := startTestDaemon(t, Config{Self: testBinary}, "")
	run := submitAndWait(t, d.client, &runapi.RunRequest{Exec: &runapi.ExecRequest{Command: []string{"sh", "-c", "echo out; echo err >&2; exit 3"}, UID: uid(65534), GID: uid(65534)}})
	if run.State != runapi.StateFailed || run.ExitCode == nil || *run.ExitCode != 3 {
		t.Fatalf("run = %+v", run)
	}
	if got := readLog(t, d.client, run.ID, "stdout"); got != "out\n" {
		t.Fatalf("stdout %q", got)
	}
	if got := readLog(t, d.client, run.ID, "stderr"); got != "err\n" {
		t.Fatalf("stderr %q", got)
	}
	if run.UID != 65534 || run.LandlockABI == 0 || run.StartedAt == nil || run.EndedAt == nil {
		t.Fatalf("record incomplete: %+v", run)
	}
	missing := submitAndWait(t, d.client, &runapi.RunRequest{Exec: &runapi.ExecRequest{Command: []string{"no-such-command-xyz"}, AllowRoot: true}})
	if missing.State != runapi.StateFailed || !strings.Contains(missing.Error, "not found") || missing.ExitCode != nil {
		t.Fatalf("missing command: %+v", missing)
	}
}

// TestConcurrentRunsSeeOnlyTheirOwnTree runs 8 traced runs at once, each
// allowed to read its own file and trying its neighbour's.
func TestConcurrentRunsSeeOnlyTheirOwnTree(t *testing.T) {
	tr := testTracer(t)
	const n = 8
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("file-%d", i)
	}
	dir := fileTree(t, names...)
	d := startTestDaemon(t, Config{Self: testBinary, Tracer: tr}, "")
	var wg sync.WaitGroup
	runs := make([]*runapi.Run, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			own, next := filepath.Join(dir, names[i]), filepath.Join(dir, names[(i+1)%n])
			ctx := context.Background()
			run, err := d.client.Submit(ctx, &runapi.RunRequest{Exec: &runapi.ExecRequest{Command: []string{"/bin/sh", "-c", "cat " + own + "; sleep 0.2; cat " + next}, Policy: policyJSON(own), Trace: true, UID: uid(65534), GID: uid(65534)}})
			if err != nil {
				t.Error(err)
				return
			}
			runs[i], err = d.client.Wait(ctx, run.ID)
			if err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	for i, run := range runs {
		if run == nil {
			t.Fatalf("run %d missing", i)
		}
		own, next := filepath.Join(dir, names[i]), filepath.Join(dir, names[(i+1)%n])
		if run.State != runapi.StateFailed || len(run.Denials) != 1 || run.Denials[0].Path != next || run.Denials[0].Axis != "read" {
			t.Errorf("run %d: state %s denials %+v, want one read denial of %s", i, run.State, run.Denials, next)
		}
		if run.LostEvents != 0 {
			t.Errorf("run %d lost %d events", i, run.LostEvents)
		}
		if out := readLog(t, d.client, run.ID, "stdout"); out != names[i]+"\n" {
			t.Errorf("run %d stdout %q", i, out)
		}
		seen := map[string]bool{}
		sc := bufio.NewScanner(strings.NewReader(readLog(t, d.client, run.ID, "events")))
		for sc.Scan() {
			var ev trace.Event
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil || ev.Op == "summary" {
				continue
			}
			if strings.HasPrefix(ev.Path, dir+"/") {
				seen[ev.Path] = true
			}
		}
		if len(seen) != 2 || !seen[own] || !seen[next] {
			t.Errorf("run %d saw files %v; want exactly its own and its neighbour's", i, seen)
		}
	}
}

// treeProcesses lists the pids whose command line contains marker.
func treeProcesses(t *testing.T, marker string) []string {
	t.Helper()
	entries, _ := os.ReadDir("/proc")
	var pids []string
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(data), marker) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

// treeMarker is a unique sleep duration: every process of a
// backgroundTree carries it on its command line.
func treeMarker() string { return fmt.Sprintf("9999.%d", time.Now().UnixNano()%1e9) }

// backgroundTree is a command whose tree keeps a background grandchild
// alive (three processes, each with marker on its command line).
func backgroundTree(marker string) []string {
	return []string{"/bin/sh", "-c", "sleep " + marker + " & sleep " + marker}
}

func waitTreeGone(t *testing.T, marker string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		left := treeProcesses(t, marker)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes of the tree still alive after %v: %v", within, left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func waitState(t *testing.T, api runapi.API, id string, want runapi.State) *runapi.Run {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		run, err := api.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if run.State == want {
			return run
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s is %s, want %s", id, run.State, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestCancelAndTimeoutKillTheWholeTree(t *testing.T) {
	requireRoot(t)
	d := startTestDaemon(t, Config{Self: testBinary}, "")
	ctx := context.Background()
	marker := treeMarker()
	run, err := d.client.Submit(ctx, &runapi.RunRequest{Exec: &runapi.ExecRequest{Command: backgroundTree(marker), UID: uid(65534), GID: uid(65534)}})
	if err != nil {
		t.Fatal(err)
	}
	waitState(t, d.client, run.ID, runapi.StateRunning)
	deadline := time.Now().Add(5 * time.Second)
	waitTreeSize(t, marker, 3, deadline)
	start := time.Now()
	final, err := d.client.Cancel(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if final.State != runapi.StateCancelled || final.ErrorKind != runapi.ErrorCancelled {
		t.Fatalf("cancelled run is %s (error kind %q)", final.State, final.ErrorKind)
	}
	waitTreeGone(t, marker, time.Second-time.Since(start))

	marker = treeMarker()
	timed := submitAndWait(t, d.client, &runapi.RunRequest{Exec: &runapi.ExecRequest{Command: backgroundTree(marker), UID: uid(65534), GID: uid(65534)}, Common: runapi.Common{TimeoutSeconds: 0.5}})
	if timed.State != runapi.StateTimeout || !strings.Contains(timed.Error, "timed out") || timed.ErrorKind != runapi.ErrorAgentTimeout {
		t.Fatalf("timed-out run: %+v", timed)
	}
	waitTreeGone(t, marker, time.Second)
}

func TestClientDisconnectDoesNotStopTheRun(t *testing.T) {
	requireRoot(t)
	d := startTestDaemon(t, Config{Self: testBinary}, "")
	ctx, cancel := context.WithCancel(context.Background())
	run, err := runapi.NewClient(d.socket).Submit(ctx, &runapi.RunRequest{Exec: &runapi.ExecRequest{Command: []string{"/bin/sh", "-c", "sleep 0.3; echo done"}, UID: uid(65534), GID: uid(65534)}})
	cancel() // the client goes away
	if err != nil {
		t.Fatal(err)
	}
	final, err := d.client.Wait(context.Background(), run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if final.State != runapi.StateSucceeded || readLog(t, d.client, run.ID, "stdout") != "done\n" {
		t.Fatalf("run after disconnect: %+v", final)
	}
}

// waitTreeSize waits until n processes carry marker.
func waitTreeSize(t *testing.T, marker string, n int, deadline time.Time) {
	t.Helper()
	for len(treeProcesses(t, marker)) < n {
		if time.Now().After(deadline) {
			t.Fatalf("tree %s has %d processes, want %d", marker, len(treeProcesses(t, marker)), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestStatusView checks ?view=status: the submit answer and the record
// carry only the status fields (no request, no plan), the same values as
// the whole record; another view is bad input.
func TestStatusView(t *testing.T) {
	requireRoot(t)
	d := startTestDaemon(t, Config{Self: testBinary}, "")
	ctx := context.Background()
	sub, err := d.client.SubmitStatus(ctx, &runapi.RunRequest{Exec: &runapi.ExecRequest{Command: []string{"sh", "-c", "exit 3"}, UID: uid(65534), GID: uid(65534)}})
	if err != nil {
		t.Fatal(err)
	}
	if sub.ID == "" || sub.Request.Exec != nil || sub.CreatedAt != (time.Time{}) {
		t.Fatalf("submit status view = %+v", sub)
	}
	full, err := d.client.Wait(ctx, sub.ID)
	if err != nil {
		t.Fatal(err)
	}
	st, err := d.client.GetStatus(ctx, sub.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(st, full.Status().Run()) || st.ExitStatus == nil || *st.ExitStatus != 3 || st.State != runapi.StateFailed {
		t.Fatalf("status view %+v, whole record %+v", st, full)
	}
	hc := unixHTTPClient(d.socket)
	resp, err := hc.Get("http://authbench/v1/runs/" + sub.ID + "?view=status")
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]json.RawMessage
	err = json.NewDecoder(resp.Body).Decode(&keys)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	for k := range keys {
		switch k {
		case "id", "state", "exit_code", "exit_status", "error", "error_kind", "still_running":
		default:
			t.Errorf("status view has %q", k)
		}
	}
	// A followed log with ?view=status ends with the status in its
	// trailer, for a run that has ended and for one that ends while
	// followed.
	rc, status, err := d.client.FollowLogStatus(ctx, sub.ID, runapi.LogStdout)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, rc)
	rc.Close()
	if got, err := status(); err != nil || !reflect.DeepEqual(got, st) {
		t.Fatalf("status trailer of an ended run = %+v, %v; want %+v", got, err, st)
	}
	live, err := d.client.SubmitStatus(ctx, &runapi.RunRequest{Exec: &runapi.ExecRequest{Command: []string{"sh", "-c", "sleep 0.3; echo out; exit 4"}, UID: uid(65534), GID: uid(65534)}})
	if err != nil {
		t.Fatal(err)
	}
	rc, status, err = d.client.FollowLogStatus(ctx, live.ID, runapi.LogStdout)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(rc)
	rc.Close()
	got, err := status()
	if err != nil || got == nil || got.ExitStatus == nil || *got.ExitStatus != 4 || got.State != runapi.StateFailed || string(out) != "out\n" {
		t.Fatalf("followed run: output %q, status trailer %+v, %v", out, got, err)
	}
	plain, err := d.client.OpenLog(ctx, live.ID, runapi.LogStdout, true)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, plain)
	plain.Close()
	resp, err = hc.Get("http://authbench/v1/runs/" + sub.ID + "/stdout?follow=1")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if v := resp.Trailer.Get(runapi.StatusTrailer); v != "" {
		t.Fatalf("a follower that did not ask for the status got it: %q", v)
	}
	resp, err = hc.Get("http://authbench/v1/runs/" + sub.ID + "?view=plan")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "view") {
		t.Fatalf("unknown view: HTTP %d %s", resp.StatusCode, body)
	}
}
