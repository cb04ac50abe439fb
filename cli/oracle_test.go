package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/cli/core"
	"github.com/authbench/authbench/internal/testenv"
)

// TestOracleRecordVerify: `oracle record` prints the same spec twice,
// --write leaves an unchanged spec file alone, `oracle verify` passes on
// it, fails naming the entry and the denial when an execute entry is
// removed, refuses bad flags, and --minimize finds an added entry not
// needed.
func TestOracleRecordVerify(t *testing.T) {
	requireLandlockCLI(t)
	testenv.NeedRoot(t)
	testenv.NeedTools(t, "runc", "buildah", "debootstrap")
	bin := benchBinary(t)
	task := "../tasks/testdata/fixtures/hello-standard"
	common := []string{"--images-dir", testenv.ImagesDir(), "--state-dir", t.TempDir()}
	oracle := func(args ...string) (int, string, string) {
		return runBinary(t, bin, "", append(append([]string{"oracle"}, args...), common...)...)
	}
	code, first, stderr := oracle("record", task)
	if code != 0 {
		t.Fatalf("record: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "diff against") || !strings.Contains(stderr, "recorded vs curated execute") {
		t.Errorf("record report: %s", stderr)
	}
	code, second, stderr := oracle("record", task, "--write")
	if code != 0 || second != first {
		t.Fatalf("second record: exit %d, differs: %v\n%s\n%s\n%s", code, second != first, first, second, stderr)
	}
	orig, err := os.ReadFile(filepath.Join(task, "tests/permission_eval_spec.json"))
	if err != nil {
		t.Fatal(err)
	}
	if string(orig) != first || !strings.Contains(stderr, "unchanged") {
		t.Errorf("the fixture's spec is not what the oracle needs (or --write rewrote it):\n%s\nrecorded:\n%s\n%s", orig, first, stderr)
	}

	code, _, stderr = oracle("verify", task)
	if code != 0 || !strings.Contains(stderr, "the spec verifies") {
		t.Fatalf("verify: exit %d: %s", code, stderr)
	}
	noWC := filepath.Join(t.TempDir(), "spec.json")
	if err := os.WriteFile(noWC, []byte(strings.Replace(first, `, "/usr/bin/wc"`, "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = oracle("verify", task, "--spec", noWC, "--semantics", "precise")
	if code != core.ExitFailure || !strings.Contains(stderr, `denied execute /usr/bin/wc (exec, EACCES): missing permission execute "/usr/bin/wc"`) {
		t.Fatalf("verify without wc: exit %d: %s", code, stderr)
	}
	for _, bad := range [][]string{{"verify", task, "--semantics", "loose"}, {"verify", task, "--parallel", "0"}, {"record", "/nonexistent"}} {
		if code, _, stderr := oracle(bad...); code != core.ExitUsage {
			t.Errorf("%q: exit %d: %s", bad, code, stderr)
		}
	}

	extra := filepath.Join(t.TempDir(), "spec.json")
	if err := os.WriteFile(extra, []byte(strings.Replace(first, `"/usr/bin/wc"`, `"/usr/bin/wc", "/usr/bin/sort"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runBinary(t, bin, "", append([]string{"--json", "oracle", "verify", task, "--spec", extra, "--minimize", "--parallel", "2"}, common...)...)
	if code != 0 {
		t.Fatalf("minimise: exit %d: %s", code, stderr)
	}
	var v struct {
		OK           bool
		Minimization struct {
			NotNeeded    []struct{ Axis, Pattern string } `json:"not_needed"`
			NeverTouched []struct{ Axis, Pattern string } `json:"never_touched"`
			Replays      int
			Parallel     int
		}
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	m := v.Minimization
	if !v.OK || m.Replays != 5 || m.Parallel != 2 || len(m.NotNeeded) != 1 || m.NotNeeded[0].Pattern != "/usr/bin/sort" ||
		len(m.NeverTouched) != 1 || m.NeverTouched[0].Pattern != "/usr/bin/sort" {
		t.Errorf("minimisation %+v", v)
	}
}

// TestOracleRecordWithoutSpec: a task without a spec is recorded with
// proposed scored_roots (the image's WORKDIR, the bin directories) and
// the default implicit baseline; --write creates the spec, which then
// verifies. verify without a spec asks for one.
func TestOracleRecordWithoutSpec(t *testing.T) {
	requireLandlockCLI(t)
	testenv.NeedRoot(t)
	testenv.NeedTools(t, "runc", "buildah", "debootstrap", "cp")
	bin := benchBinary(t)
	task := filepath.Join(t.TempDir(), "hello-standard") // the fixture's name: its cached image
	if out, err := exec.Command("cp", "-a", "../tasks/testdata/fixtures/hello-standard", task).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	specFile := filepath.Join(task, "tests/permission_eval_spec.json")
	if err := os.Remove(specFile); err != nil {
		t.Fatal(err)
	}
	common := []string{"--images-dir", testenv.ImagesDir(), "--state-dir", t.TempDir()}
	oracle := func(args ...string) (int, string, string) {
		return runBinary(t, bin, "", append(append([]string{"oracle"}, args...), common...)...)
	}
	if code, _, stderr := oracle("verify", task); code != core.ExitUsage || !strings.Contains(stderr, "record one first, or give --spec FILE") {
		t.Fatalf("verify without a spec: exit %d: %s", code, stderr)
	}
	code, out, stderr := oracle("record", task, "--write")
	if code != 0 || !strings.Contains(stderr, "recording with proposed scored_roots") {
		t.Fatalf("record: exit %d: %s", code, stderr)
	}
	written, err := os.ReadFile(specFile)
	if err != nil || string(written) != out {
		t.Fatalf("--write: %v\n%s\nprinted:\n%s", err, written, out)
	}
	for _, want := range []string{`"read": ["/app"]`, `"execute": ["/usr/bin", "/bin", "/usr/local/bin"]`, `"/etc/nsswitch.conf"`,
		`"read": ["/app/input.txt"]`, `"write": ["/app/count.txt"]`, `"execute": ["/usr/bin/bash", "/usr/bin/wc"]`} {
		if !strings.Contains(out, want) {
			t.Errorf("recorded spec lacks %s:\n%s", want, out)
		}
	}
	if code, _, stderr := oracle("verify", task); code != 0 {
		t.Errorf("verify the new spec: exit %d: %s", code, stderr)
	}
}
