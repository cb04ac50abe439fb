package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/policy"
)

// Tests that restrict a process never restrict the test process itself:
// they start the test binary again as sandbox-init (the argument
// InitCommand), which restricts itself and execs the test binary once
// more as a probe (environment variable probeEnv) that performs
// operations and prints their outcomes as JSON.
const probeEnv = "AUTHBENCH_SANDBOX_PROBE"

// execEnv makes the test binary call Exec with the JSON Launch it holds
// and print the error Exec returns as JSON (see TestExecInitError).
const execEnv = "AUTHBENCH_SANDBOX_EXEC"

func runExec(data string) int {
	var spec Launch
	if err := json.Unmarshal([]byte(data), &spec); err != nil {
		return 2
	}
	err := Exec(spec)
	ie, ok := err.(*InitError)
	if !ok {
		fmt.Printf("not an *InitError: %T %v", err, err)
		return 3
	}
	_ = json.NewEncoder(os.Stdout).Encode(ie)
	return 4
}

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == InitCommand {
		_ = RunInit()
		os.Exit(ExitInitFailure)
	}
	if ops := os.Getenv(probeEnv); ops != "" {
		os.Exit(runProbe(ops))
	}
	if spec := os.Getenv(execEnv); spec != "" {
		os.Exit(runExec(spec))
	}
	os.Exit(m.Run())
}

// inCI reports whether missing kernel features must fail tests.
func inCI() bool { return os.Getenv("CI") == "true" }

// requireLandlock skips (or, under CI=true, fails) a test that needs at
// least Landlock ABI minABI.
func requireLandlock(t *testing.T, minABI int) int {
	t.Helper()
	abi := KernelLandlockABI()
	if abi < minABI {
		msg := "needs Landlock ABI %d (kernel has %d)"
		if inCI() {
			t.Fatalf(msg, minABI, abi)
		}
		t.Skipf(msg, minABI, abi)
	}
	return abi
}

// requireRoot skips (or, under CI=true, fails) a test that must run as
// root.
func requireRoot(t *testing.T, why string) {
	t.Helper()
	if os.Geteuid() != 0 {
		if inCI() {
			t.Fatalf("needs root: %s", why)
		}
		t.Skipf("needs root: %s", why)
	}
}

// testBinary returns the path of the running test binary.
func testBinary(t testing.TB) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return self
}

// fixtureDir returns a fresh directory outside /tmp (which the default
// baseline makes writable), traversable by any user.
func fixtureDir(t testing.TB) string {
	t.Helper()
	base := "/var/tmp"
	if st, err := os.Stat(base); err != nil || !st.IsDir() {
		base = ""
	}
	dir, err := os.MkdirTemp(base, "authbench-sandbox-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err = filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// hostPlan compiles a policy document against the host root.
func hostPlan(t testing.TB, doc string, base policy.Baseline) *policy.Plan {
	t.Helper()
	return hostPlanWith(t, doc, base, policy.PlanOptions{})
}

// hostPlanWith compiles a policy document against the host root with
// options.
func hostPlanWith(t testing.TB, doc string, base policy.Baseline, opts policy.PlanOptions) *policy.Plan {
	t.Helper()
	pol, err := policy.ParsePolicy([]byte(doc), "test-policy.json")
	if err != nil {
		t.Fatalf("policy %s: %v", doc, err)
	}
	root, err := policy.NewRoot("/")
	if err != nil {
		t.Fatal(err)
	}
	pl, err := policy.CompilePlanWith(pol, base, root, opts)
	if err != nil {
		t.Fatal(err)
	}
	return pl
}

// policyDoc builds a policy document from three lists.
func policyDoc(read, write, execute []string) string {
	enc := func(l []string) string {
		if l == nil {
			l = []string{}
		}
		b, _ := json.Marshal(l)
		return string(b)
	}
	return `{"read":` + enc(read) + `,"write":` + enc(write) + `,"execute":` + enc(execute) + `}`
}

// withSelf adds a rule that lets the probe (the test binary) run.
func withSelf(t testing.TB, pl *policy.Plan) *policy.Plan {
	t.Helper()
	cp := *pl
	cp.Rules = append(append([]policy.Rule(nil), pl.Rules...), policy.Rule{
		Path: testBinary(t), Access: policy.AccessExecute | policy.AccessReadFile,
		From: []policy.RuleSource{{Origin: policy.OriginSandbox, Axis: "execute", Pattern: "test binary"}},
	})
	return &cp
}

// childResult is what one sandboxed child did.
type childResult struct {
	status int
	stdout string
	stderr string
	err    error // Start or Release error (the child never ran the command)
}

// runChild runs spec under sandbox-init (the test binary) and waits.
func runChild(t testing.TB, spec Launch, stdin io.Reader) childResult {
	t.Helper()
	return runChildWith(t, spec, LaunchOptions{}, stdin)
}

// runChildWith is runChild with launch options.
func runChildWith(t testing.TB, spec Launch, opts LaunchOptions, stdin io.Reader) childResult {
	t.Helper()
	var out, errb bytes.Buffer
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	c, err := StartWith(testBinary(t), spec, opts, stdin, &out, &errb)
	if err != nil {
		return childResult{err: err}
	}
	if err := c.Release(); err != nil {
		status, _ := c.Wait()
		return childResult{status: status, err: err, stderr: errb.String()}
	}
	status, err := c.Wait()
	return childResult{status: status, stdout: out.String(), stderr: errb.String(), err: err}
}

// probe runs ops in a child restricted by spec (whose Path and Args are
// set to the probe) and returns one result per op.
func probe(t testing.TB, spec Launch, ops []probeOp, stdin io.Reader) ([]probeResult, childResult) {
	t.Helper()
	return probeWith(t, spec, LaunchOptions{}, ops, stdin)
}

// probeWith is probe with launch options.
func probeWith(t testing.TB, spec Launch, opts LaunchOptions, ops []probeOp, stdin io.Reader) ([]probeResult, childResult) {
	t.Helper()
	return probeAt(t, spec, opts, testBinary(t), ops, stdin)
}

// probeAt is probeWith with the probe (a copy of the test binary) at bin.
func probeAt(t testing.TB, spec Launch, opts LaunchOptions, bin string, ops []probeOp, stdin io.Reader) ([]probeResult, childResult) {
	t.Helper()
	data, err := json.Marshal(ops)
	if err != nil {
		t.Fatal(err)
	}
	spec.Path = bin
	spec.Args = []string{spec.Path}
	spec.Env = append(spec.Env, probeEnv+"="+string(data))
	res := runChildWith(t, spec, opts, stdin)
	if res.err != nil {
		return nil, res
	}
	var out []probeResult
	dec := json.NewDecoder(strings.NewReader(res.stdout))
	for {
		var r probeResult
		if err := dec.Decode(&r); err != nil {
			break
		}
		out = append(out, r)
	}
	return out, res
}
