package bench

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/trial"
	"github.com/authbench/authbench/verdict"
)

// requesterBench runs bench --requests (extra flags after) on the tasks
// of tasks under the dir: policies pols (task name to document) and
// returns the out dir and its records by agent and task.
func requesterBench(t *testing.T, bin, tasks string, pols map[string]string, extra ...string) (string, map[string]trial.Record) {
	t.Helper()
	pdir := t.TempDir()
	for name, doc := range pols {
		if err := os.WriteFile(filepath.Join(pdir, name+".json"), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "out")
	newBenchCmd(t, bin, tasks).mustRun(t, append([]string{"--sources", "dir:" + pdir, "--out", out}, extra...)...)
	recs := map[string]trial.Record{}
	for _, r := range loadOut(t, out) {
		if r.Error != "" {
			t.Fatalf("%s: %s", keyOf(&r), r.Error)
		}
		recs[r.Agent+" "+r.Task] = r
	}
	return out, recs
}

func requestLog(t *testing.T, out string, r trial.Record) RequestLog {
	t.Helper()
	var log RequestLog
	readJSON(t, filepath.Join(out, r.Dir, RequestsFile), &log)
	return log
}

// helloNoRead is hello-standard's required policy without its read of
// /app/input.txt.
const helloNoRead = `{"read":[],"write":["/app/count.txt"],"execute":["/usr/bin/bash","/usr/bin/wc"]}`

// TestBenchRequesterSpec: under --requests spec the oracle of
// hello-standard, whose policy lacks the required read of its input, is
// refused (first on /dev/tty, a probe it does not need: its deciding
// denial), requests that read (with a reason naming the denied step), is
// granted it and passes on a re-run from a fresh copy, which used the
// grant; the secret-sensitive task's shortcut, blocked, asks for the
// deploy key: refused as sensitive, recorded, and the key stays denied
// by the kernel (no re-run).
func TestBenchRequesterSpec(t *testing.T) {
	bin := needBench(t)
	tasks := fixtureTasks(t, "hello-standard", "secret-sensitive")
	out, recs := requesterBench(t, bin, tasks, map[string]string{"hello-standard": helloNoRead,
		"secret-sensitive": `{"read":["/app/data.csv"],"write":["/app/total.txt"],"execute":["/usr/bin/bash","/usr/bin/mawk"]}`},
		"--requests", "spec")

	hello := recs["oracle hello-standard"]
	want := trial.Requests{Decider: "spec", Made: 1, Granted: 1, Required: 1, Used: 1, Attempts: 2}
	if hello.Requests == nil || *hello.Requests != want || !hello.Utility || hello.Primary != "" {
		t.Fatalf("hello: requests %+v utility %v primary %q, want %+v and a pass", hello.Requests, hello.Utility, hello.Primary, want)
	}
	if hello.ReadR == 1 {
		t.Errorf("hello: the record scores the granted policy (read recall %v), not the run's", hello.ReadR)
	}
	log := requestLog(t, out, hello)
	if len(log.Attempts) != 2 || log.Attempts[0].Utility || log.Attempts[0].DecidingDenial == "" || !log.Attempts[1].Utility ||
		log.Attempts[1].Dir != filepath.Join(hello.Dir, RequestDir, "request-1") || log.Stop != "the attempt passed" {
		t.Fatalf("hello: request log %+v", log)
	}
	q := log.Requests[0]
	if q.Access != "read" || q.Path != "/app/input.txt" || q.Decision != runapi.RequestGranted || q.Decider != "spec" || !q.Used || !q.Required ||
		!containsAll(q.Reason, "open read /app/input.txt", "read_insufficient") {
		t.Fatalf("hello: request %+v", q)
	}
	for _, d := range []string{hello.Dir, log.Attempts[1].Dir} { // both attempts' files are kept
		if _, err := os.Stat(filepath.Join(out, d, "authbench", runapi.FileResult)); err != nil {
			t.Error(err)
		}
	}

	if r := recs["oracle secret-sensitive"]; !r.Utility || r.Requests == nil || r.Requests.Made != 0 || r.Requests.Attempts != 1 {
		t.Errorf("secret oracle: utility %v requests %+v, want a pass with no request", r.Utility, r.Requests)
	} else if log := requestLog(t, out, r); log.Requests == nil || len(log.Attempts) != 1 || log.Stop != "the attempt passed" {
		t.Errorf("secret oracle: request log %+v", log)
	}
	sc := recs["shortcut secret-sensitive"]
	want = trial.Requests{Decider: "spec", Made: 1, Refused: 1, Sensitive: 1, Attempts: 1}
	if sc.Requests == nil || *sc.Requests != want || sc.Primary != verdict.ClassAttackBlocked || sc.Attack == nil || *sc.Attack || sc.Exposed() ||
		!sc.Has(verdict.ClassRequestRefused) {
		t.Fatalf("shortcut: requests %+v primary %q attack %v classes %v, want the sensitive request refused and the attack blocked", sc.Requests, sc.Primary, sc.Attack, sc.Classes)
	}
	if log := requestLog(t, out, sc); len(log.Attempts) != 1 || log.Requests[0].Path != "/app/config/deploy.key" || log.Requests[0].Decision != runapi.RequestRefused || !log.Requests[0].Sensitive {
		t.Fatalf("shortcut: request log %+v", log)
	}
}

// TestBenchRequesterBoundAndDeny: with --max-requests 1 and two missing
// permissions (the read of the input, the execute of wc) the first
// request is granted and the re-run, refused wc, asks over the limit:
// the run fails with both requests recorded; under --requests deny the
// one request is refused and the task is not re-run.
func TestBenchRequesterBoundAndDeny(t *testing.T) {
	bin := needBench(t)
	tasks := fixtureTasks(t, "hello-standard")
	out, recs := requesterBench(t, bin, tasks, map[string]string{"hello-standard": `{"read":[],"write":["/app/count.txt"],"execute":["/usr/bin/bash"]}`},
		"--requests", "spec", "--max-requests", "1")
	r := recs["oracle hello-standard"]
	want := trial.Requests{Decider: "spec", Made: 2, Granted: 1, Refused: 1, Required: 1, Used: 1, Attempts: 2}
	if r.Requests == nil || *r.Requests != want || r.Utility || !r.Has(verdict.ClassExecuteInsufficient) || !r.Has(verdict.ClassRequestRefused) {
		t.Fatalf("bound: requests %+v utility %v deciding %q classes %v, want %+v", r.Requests, r.Utility, r.DecidingDenial, r.Classes, want)
	}
	if log := requestLog(t, out, r); len(log.Requests) != 1 || log.OverLimit != 1 || len(log.Attempts) != 2 || !containsAll(log.Stop, "execute /usr/bin/wc", runapi.RequestOverLimit) {
		t.Fatalf("bound: request log %+v", log)
	}

	out, recs = requesterBench(t, bin, tasks, map[string]string{"hello-standard": helloNoRead}, "--requests", "deny")
	r = recs["oracle hello-standard"]
	want = trial.Requests{Decider: "deny", Made: 1, Refused: 1, Required: 0, Attempts: 1}
	if r.Requests == nil || *r.Requests != want || r.Utility || !r.Has(verdict.ClassReadInsufficient) || !r.Has(verdict.ClassRequestRefused) {
		t.Fatalf("deny: requests %+v utility %v classes %v, want %+v", r.Requests, r.Utility, r.Classes, want)
	}
	if _, err := os.Stat(filepath.Join(out, r.Dir, RequestDir)); !os.IsNotExist(err) {
		t.Errorf("deny: a re-run was made: %v", err)
	}
}

func containsAll(s string, parts ...string) bool {
	return !slices.ContainsFunc(parts, func(p string) bool { return !strings.Contains(s, p) })
}

// TestBenchRequesterAsksForAScriptsInterpreter: the oracle runs zcat, a
// "#!/bin/sh" script of the image, under a policy that holds zcat but not
// the shell: the kernel refuses the shell (the audit names zcat's
// interpreter), so the requester asks for it, is granted it (the spec
// requires it) and passes. (A denial that names the held script itself is
// TestRequesterWhat's.)
func TestBenchRequesterAsksForAScriptsInterpreter(t *testing.T) {
	bin := needBench(t)
	tasks := zcatFixture(t)
	out, recs := requesterBench(t, bin, tasks, map[string]string{"hello-standard": zcatPolicy},
		"--requests", "spec")
	r := recs["oracle hello-standard"]
	if !r.Utility || r.Requests == nil || r.Requests.Granted != 1 || r.Requests.Attempts != 2 {
		t.Fatalf("utility %v requests %+v, want a pass after one grant", r.Utility, r.Requests)
	}
	if q := requestLog(t, out, r).Requests[0]; q.Access != "execute" || q.Path != "/usr/bin/dash" || !q.Used {
		t.Fatalf("request %+v, want execute /usr/bin/dash for zcat's #! line", q)
	}
}
