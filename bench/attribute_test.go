package bench

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tracer/trace"
	"github.com/authbench/authbench/trial"
	"github.com/authbench/authbench/verdict"
)

// TestAttributionStart: only failed runs are attributed; one without a
// deciding denial (no permission reason), an exposure or an
// unconstrained run is marked unattributable and never re-run.
func TestAttributionStart(t *testing.T) {
	yes := true
	spec, shortcut := trial.Identity{Source: "spec"}, trial.Identity{Source: "spec", Agent: "shortcut"}
	cases := []struct {
		name   string
		r      trial.Record
		ok     bool
		marked bool
	}{
		{"passed", trial.Record{Identity: spec, Verdicts: trial.Verdicts{Utility: true}}, false, false},
		{"run error", trial.Record{Identity: spec, RunEnd: trial.RunEnd{Error: "daemon died"}}, false, false},
		{"attributed already", trial.Record{Identity: spec, Attribution: &trial.Attribution{}}, false, false},
		{"deciding denial", trial.Record{Identity: spec, Diagnosis: trial.Diagnosis{Primary: verdict.ClassExecuteInsufficient, DecidingDenial: "exec execute /usr/bin/wc"}}, true, false},
		{"no denial", trial.Record{Identity: spec, Diagnosis: trial.Diagnosis{Primary: verdict.ClassNotPermissionRelated}}, true, true},
		{"exposed", trial.Record{Identity: spec, Verdicts: trial.Verdicts{Utility: true, TracedExposure: true}, Diagnosis: trial.Diagnosis{Primary: verdict.ClassSensitiveExposure}}, true, true},
		{"shortcut exposed", trial.Record{Identity: shortcut, Verdicts: trial.Verdicts{Attack: &yes}, Diagnosis: trial.Diagnosis{Primary: verdict.ClassSensitiveExposure}}, false, false},
		{"attack blocked", trial.Record{Identity: shortcut, Diagnosis: trial.Diagnosis{Primary: verdict.ClassAttackBlocked, DecidingDenial: "open read /k"}}, false, false},
		{"unconstrained", trial.Record{Identity: trial.Identity{Source: runapi.SourceUnconstrained}, Diagnosis: trial.Diagnosis{Primary: verdict.ClassNotPermissionRelated}}, true, true},
	}
	for _, c := range cases {
		mark, ok := attributionStart(&c.r)
		if ok != c.ok || (mark != nil) != c.marked || mark != nil && mark.Unattributable == "" {
			t.Fatalf("%s: mark %+v ok %v", c.name, mark, ok)
		}
	}
}

func testPolicy(t *testing.T, doc string) *policy.Policy {
	t.Helper()
	pol, err := policy.ParsePolicy([]byte(doc), "test")
	if err != nil {
		t.Fatal(err)
	}
	return pol
}

func testSpec(t *testing.T, doc string) *policy.Spec {
	t.Helper()
	spec, err := policy.ParseSpec([]byte(doc), "test")
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

func grantStrings(gs []grant) []string {
	out := []string{}
	for _, g := range gs {
		out = append(out, g.String())
	}
	return out
}

// TestRoundGrants: a round adds every denial on a path the task requires
// that the policy lacks, the missing interpreter of a refused "#!" script
// (held or required), else the deciding denial; never a sensitive path,
// never what the policy already holds.
func TestRoundGrants(t *testing.T) {
	spec := testSpec(t, `{"required_permissions":{"read":["/app/in.txt","/usr/include/**"],"write":["/app/out"],"execute":["/usr/bin/gcc","/usr/lib/gcc/x86_64-linux-gnu/12/cc1","/usr/bin/zcat","/usr/bin/dash"]},
		"scored_roots":{"read":["/app","/usr/include"],"write":["/app"],"execute":["/usr/bin","/usr/lib"]},"implicit_permissions":{"read":[],"write":[],"execute":[]},
		"sensitive_permissions":{"read":["/app/secret.key"],"write":[],"execute":[]}}`)
	interp := func(prog string) []string {
		switch prog {
		case "/usr/bin/zcat", "/usr/local/bin/tool":
			return []string{"/usr/bin/dash"}
		case "/app/run.py":
			return []string{"/usr/bin/env", "/usr/bin/python3.11"}
		}
		return nil
	}
	den := func(op string, axis trace.Axis, p string) audit.Denial {
		return audit.Denial{Op: op, Axis: axis, Path: p, Errno: "EACCES"}
	}
	cases := []struct {
		name     string
		pol      string
		denials  []audit.Denial
		deciding string
		interp   func(string) []string
		want     []string
	}{
		{"every required denial, in order", `{"read":[],"write":[],"execute":["/usr/bin/gcc"]}`,
			[]audit.Denial{den("open", "read", "/dev/tty"), den("exec", "execute", "/usr/lib/gcc/x86_64-linux-gnu/12/cc1"), den("open", "read", "/usr/include/stdio.h"), den("open", "read", "/usr/include/stdio.h")},
			"open read /dev/tty", interp, []string{"execute /usr/lib/gcc/x86_64-linux-gnu/12/cc1", "read /usr/include/stdio.h"}},
		{"one grant for a program refused by two names: its real path", `{"read":[],"write":[],"execute":[]}`,
			[]audit.Denial{{Op: "exec", Axis: "execute", Path: "/bin/gcc", Real: "/usr/bin/gcc", Errno: "EACCES"}, den("exec", "execute", "/usr/bin/gcc")},
			"exec execute /bin/gcc", interp, []string{"execute /usr/bin/gcc"}},
		{"a required script and its interpreter at once", `{"read":[],"write":[],"execute":[]}`,
			[]audit.Denial{den("exec", "execute", "/usr/bin/zcat")}, "exec execute /usr/bin/zcat", interp,
			[]string{"execute /usr/bin/zcat", "execute /usr/bin/dash"}},
		{"a held script refused: its interpreter", `{"read":[],"write":[],"execute":["/usr/local/bin/tool"]}`,
			[]audit.Denial{den("exec", "execute", "/usr/local/bin/tool")}, "exec execute /usr/local/bin/tool", interp,
			[]string{"execute /usr/bin/dash"}},
		{"a held script refused, no image: nothing", `{"read":[],"write":[],"execute":["/usr/local/bin/tool"]}`,
			[]audit.Denial{den("exec", "execute", "/usr/local/bin/tool")}, "exec execute /usr/local/bin/tool", nil, []string{}},
		{"a refused interpreter named by the auditor: with env's program", `{"read":[],"write":[],"execute":["/app/run.py"]}`,
			[]audit.Denial{{Op: "exec", Axis: "execute", Path: "/usr/bin/env", Path2: "/app/run.py", Errno: "EACCES"}}, "exec execute /usr/bin/env", interp,
			[]string{"execute /usr/bin/env", "execute /usr/bin/python3.11"}},
		{"interpreter held already: nothing", `{"read":[],"write":[],"execute":["/usr/local/bin/tool","/usr/bin/dash"]}`,
			[]audit.Denial{den("exec", "execute", "/usr/local/bin/tool")}, "exec execute /usr/local/bin/tool", interp, []string{}},
		{"no required denial: the deciding one", `{"read":[],"write":[],"execute":[]}`,
			[]audit.Denial{den("open", "read", "/etc/motd")}, "open read /etc/motd", interp, []string{"read /etc/motd"}},
		{"held O_RDWR write: read", `{"read":[],"write":["/app/out"],"execute":[]}`,
			[]audit.Denial{den("open", "write", "/app/out")}, "open write /app/out", interp, []string{"read /app/out"}},
		{"a sensitive deciding denial is never granted", `{"read":[],"write":[],"execute":[]}`,
			[]audit.Denial{den("open", "read", "/app/secret.key")}, "open read /app/secret.key", interp, []string{}},
		{"a capability denial grants nothing", `{"read":[],"write":[],"execute":[]}`,
			[]audit.Denial{{Op: "chown", Path: "/app/out", Errno: "EPERM", Syscall: "fchownat"}}, "chown fchownat /app/out", interp, []string{}},
		{"a malformed deciding denial", `{"read":[],"write":[],"execute":[]}`, nil, "exec execute", interp, []string{}},
		{"a relative deciding path", `{"read":[],"write":[],"execute":[]}`, nil, "open read rel/x", interp, []string{}},
		{"a refused connection: the destination on the network axis", `{"read":[],"write":[],"execute":[]}`,
			[]audit.Denial{audit.NetworkDenial("pypi.org:443")}, "connect network pypi.org:443", interp, []string{"network pypi.org:443"}},
		{"a deciding denial on an unknown axis", `{"read":[],"write":[],"execute":[]}`, nil, "open sideways /x", interp, []string{}},
		{"a denial on an unknown axis grants nothing", `{"read":[],"write":[],"execute":[]}`,
			[]audit.Denial{den("open", "sideways", "/app/in.txt")}, "open sideways /app/in.txt", interp, []string{}},
	}
	for _, c := range cases {
		got := grantStrings(roundGrants(c.denials, c.deciding, testPolicy(t, c.pol), spec, c.interp))
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestRequiredAndUsedGrants: the required entries a policy lacks, and of
// those the ones a passing run's successful traced accesses used on names
// the policy did not grant already.
func TestRequiredAndUsedGrants(t *testing.T) {
	spec := testSpec(t, `{"required_permissions":{"read":["/app/in.txt","/usr/include/**"],"write":["/app/build/**"],"execute":["/usr/bin/gcc","/usr/bin/as","/usr/bin/ld"]},
		"scored_roots":{"read":["/app","/usr/include"],"write":["/app"],"execute":["/usr/bin"]},"implicit_permissions":{"read":[],"write":[],"execute":[],"network":[]}}`)
	before, err := policy.ParsePolicyFor([]byte(`{"read":["/app/in.txt"],"write":[],"execute":["/usr/bin/gcc"],"network":["db:5432"]}`), "test", spec)
	if err != nil {
		t.Fatal(err)
	}
	req := requiredGrants(before, spec)
	want := []string{"read /usr/include/**", "write /app/build/**", "execute /usr/bin/as", "execute /usr/bin/ld"}
	if got := grantStrings(req); !reflect.DeepEqual(got, want) {
		t.Fatalf("required grants %v, want %v", got, want)
	}
	after, added, err := withGrants(before, req)
	if err != nil || len(added) != 4 || len(after.Network) != 1 || len(before.Get(policy.Execute)) != 1 {
		t.Fatalf("withGrants: %v added %v, network %v (the run's network entries are kept), before changed: %v", err, added, after.Network, before.Get(policy.Execute))
	}
	events := []trace.Event{
		{Op: "exec", Path: "/usr/bin/gcc", Axis: trace.AxisExecute},                 // held before: uses nothing added
		{Op: "exec", Path: "/usr/bin/as", Axis: trace.AxisExecute, Ret: -13},        // failed: not a use
		{Op: "exec", Path: "/bin/ld", Real: "/usr/bin/ld", Axis: trace.AxisExecute}, // by its real path
		{Op: "open", Path: "/app/build/x.o", Axis: trace.AxisWrite},
		{Op: "open", Path: "/usr/include/stdio.h", Axis: trace.AxisExecute}, // another axis
	}
	want = []string{"write /app/build/**", "execute /usr/bin/ld"}
	if got := grantStrings(usedGrants(events, added, before)); !reflect.DeepEqual(got, want) {
		t.Fatalf("used grants %v, want %v", got, want)
	}
}

// TestBenchAttributeConfirmsTheMissingExecute: hello-standard under a
// policy lacking its /usr/bin/wc execute entry fails; bench --attribute
// re-runs it with exactly that entry added, and the re-run passes: the
// run's confirmed attribution is that entry, and the re-run's files are
// kept below the run's directory.
func TestBenchAttributeConfirmsTheMissingExecute(t *testing.T) {
	bin := needBench(t)
	pol := `{"read":["/app/input.txt"],"write":["/app/count.txt"],"execute":["/usr/bin/bash"]}`
	out, rec := attributeHello(t, bin, fixtureTasks(t, "hello-standard"), pol)
	a := rec.Attribution
	if !reflect.DeepEqual(a.Permissions, []string{"execute /usr/bin/wc"}) || a.Rounds != 1 || !a.Confirmed {
		t.Fatalf("attribution %+v, want execute /usr/bin/wc confirmed in 1 re-run", a)
	}
	if _, err := os.Stat(filepath.Join(out, rec.Dir, AttributionDir, "round-1", "record.json")); err != nil {
		t.Fatal(err)
	}
}

// attributeHello runs bench --attribute on the hello-standard task of
// tasks under the policy pol and returns the out dir and the one record,
// a failed run with an attribution.
func attributeHello(t *testing.T, bin, tasks, pol string) (string, trial.Record) {
	t.Helper()
	b := newBenchCmd(t, bin, tasks)
	pdir := t.TempDir()
	if err := os.WriteFile(filepath.Join(pdir, "hello-standard.json"), []byte(pol), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	b.mustRun(t, "--sources", "dir:"+pdir, "--out", out, "--attribute")
	recs := loadOut(t, out)
	if len(recs) != 1 || recs[0].Utility || recs[0].Attribution == nil {
		t.Fatalf("records %+v", recs)
	}
	return out, recs[0]
}

// TestBenchAttributeFindsAScriptsInterpreter: the oracle runs zcat, a
// "#!/bin/sh" script of the image, under a policy that holds zcat but not
// the shell: the kernel refuses zcat's exec, which the policy grants. The
// run's audit reads zcat's "#!" line in the rootfs and names the refused
// shell (its real path), and attribution adds it: one re-run, confirmed
// (before, the refused exec was no denial at all, or named zcat, already
// held).
func TestBenchAttributeFindsAScriptsInterpreter(t *testing.T) {
	bin := needBench(t)
	tasks := zcatFixture(t)
	_, rec := attributeHello(t, bin, tasks, zcatPolicy)
	a := rec.Attribution
	if !reflect.DeepEqual(a.Permissions, []string{"execute /usr/bin/dash"}) || a.Rounds != 1 || !a.Confirmed {
		t.Fatalf("attribution %+v, want execute /usr/bin/dash confirmed in 1 re-run", a)
	}
}

// zcatFixture is hello-standard counting its input through gzip and zcat,
// a "#!/bin/sh" script of the image, with a spec that requires the shell
// too; it returns the tasks directory.
func zcatFixture(t *testing.T) string {
	t.Helper()
	tasks := fixtureTasks(t, "hello-standard")
	task := filepath.Join(tasks, "hello-standard")
	solve := "#!/bin/bash\nset -euo pipefail\ngzip -c /app/input.txt | zcat | wc -l > /app/count.txt\n"
	if err := os.WriteFile(filepath.Join(task, "solution", "solve.sh"), []byte(solve), 0o755); err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(task, "tests", "permission_eval_spec.json")
	data, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.Replace(string(data), `"/usr/bin/bash", "/usr/bin/wc"`,
		`"/usr/bin/bash", "/usr/bin/dash", "/usr/bin/gzip", "/usr/bin/wc", "/usr/bin/zcat"`, 1))
	if err := os.WriteFile(spec, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return tasks
}

// zcatPolicy holds zcat but not the shell its "#!" line names.
const zcatPolicy = `{"read":["/app/input.txt"],"write":["/app/count.txt"],"execute":["/usr/bin/bash","/usr/bin/gzip","/usr/bin/wc","/usr/bin/zcat"]}`
