package sandbox

import (
	"fmt"
	"strings"
	"testing"

	"github.com/authbench/authbench/policy"
	"golang.org/x/sys/unix"
)

// matrixExpectPublished pins the published launcher's rules (the
// "published tasks" issue), independent of the plan compiler: shape/axis
// → cell → allowed. A write grants its parent directory; a missing read
// target its closest existing ancestor.
var matrixExpectPublished = map[string]map[string]bool{
	"exact file/read":    {"read allowed": true, "read sibling": false, "list dir": false, "write allowed": false, "exec allowed": false},
	"missing/read":       {"read sibling": true, "read nested": true, "list dir": true, "read parent": false, "write allowed": false, "create missing (named)": false},
	"recursive/read":     {"read nested": true, "list nested dir": true, "read parent": false},
	"glob/read":          {"read allowed": true, "read glob-mate": true, "read sibling": false},
	"exact file/write":   {"write allowed": true, "write sibling": true, "create new sibling": true, "delete sibling": true, "list dir": true, "rename allowed": true, "move into nested dir": true, "read allowed": false, "create in parent": false, "move to parent dir": false},
	"missing/write":      {"create missing (named)": true, "create new sibling": true, "delete sibling": true, "read sibling": false, "create in parent": false},
	"exact dir/write":    {"write allowed": true, "create in parent": true, "delete in parent": true, "move to parent dir": true, "read allowed": false},
	"recursive/write":    {"write nested": true, "list dir": true, "create new nested": true, "read allowed": false, "create in parent": false},
	"glob/write":         {"write allowed": true, "write sibling": true, "create new sibling": true, "read allowed": false},
	"exact file/execute": {"exec allowed": true, "read allowed": true, "exec sibling": false, "write allowed": false},
	// The launcher's caller passes every execute entry as a read entry
	// too: a missing program's nearest existing ancestor may be read.
	"missing/execute": {"exec allowed": false, "read allowed": true, "read sibling": true, "list dir": true, "read parent": false},
}

// TestSemanticsMatrixPublished is TestSemanticsMatrix for plans compiled
// with the published semantics: for every rule shape and axis, every
// operation's outcome under a real Landlock domain equals what the plan
// predicts, and what the published launcher's rules say.
func TestSemanticsMatrixPublished(t *testing.T) {
	abi := requireLandlock(t, 1)
	table := semanticsMatrix(t, abi, policy.PlanOptions{Semantics: policy.SemanticsPublished}, matrixExpectPublished, "the published rules")
	t.Logf("published semantics, observed outcomes (A allowed, . denied), ABI %d, columns as in TestSemanticsMatrix:\n%s", abi, table)
}

// runMatrixCells runs the cells' operations in one probe under pl and
// returns whether each was allowed, failing the test on an error that is
// not a denial.
func runMatrixCells(t *testing.T, pl *policy.Plan, cells []matrixCell) []bool {
	t.Helper()
	ops := make([]probeOp, len(cells))
	for i, c := range cells {
		ops[i] = c.op
	}
	res, child := probe(t, Launch{Plan: withSelf(t, pl), CloseFDs: true}, ops, nil)
	if child.err != nil || len(res) != len(cells) {
		t.Fatalf("probe: %v (%d of %d results)\nstderr: %s", child.err, len(res), len(cells), child.stderr)
	}
	out := make([]bool, len(cells))
	for i, c := range cells {
		out[i] = res[i].Errno == 0
		if c.op.Op == "exec" && out[i] && !strings.HasPrefix(res[i].Out, "status=0") {
			t.Errorf("%s: exec ran but %s", c.name, res[i].Out)
		}
		if !out[i] && !deniedErrno(res[i].Errno) {
			t.Errorf("%s: failed with errno %d (%s), not a denial", c.name, res[i].Errno, res[i].Out)
		}
	}
	return out
}

// TestOpenAccessMatchesKernel checks the audit's op→rights table
// (policy.Plan.Permits for opens) against the kernel: for plans that
// grant create without read, read and write without create, and the
// published write, each open is allowed exactly when Permits says so
// given whether the file existed, and Permits without that knowledge
// never calls an allowed open refused. The first row is git's
// open(index.lock, O_RDWR|O_CREAT|O_EXCL), which failed with EACCES
// while the old table said the plan permitted it.
func TestOpenAccessMatchesKernel(t *testing.T) {
	abi := requireLandlock(t, 3) // truncate is a right from ABI 3
	plans := []struct {
		name string
		doc  func(f string) string
		opts policy.PlanOptions
	}{
		{"create only", func(f string) string { return policyDoc(nil, []string{f + "/d/new.txt"}, nil) }, policy.PlanOptions{}},
		{"create and read", func(f string) string {
			return policyDoc([]string{f + "/d/**"}, []string{f + "/d/new.txt"}, nil)
		}, policy.PlanOptions{}},
		{"read all, write one file", func(f string) string {
			return policyDoc([]string{f + "/d/**"}, []string{f + "/d/f.txt"}, nil)
		}, policy.PlanOptions{}},
		{"published write", func(f string) string { return policyDoc(nil, []string{f + "/d/new.txt"}, nil) },
			policy.PlanOptions{Semantics: policy.SemanticsPublished}},
	}
	type row struct {
		name   string
		file   string // below F/d
		flags  int
		target policy.TargetState
	}
	rows := []row{
		{"git lock: rdwr|creat|excl, new", "l1", unix.O_RDWR | unix.O_CREAT | unix.O_EXCL, policy.TargetMissing},
		{"rdwr|creat, new", "l2", unix.O_RDWR | unix.O_CREAT, policy.TargetMissing},
		{"wronly|creat, new", "l3", unix.O_WRONLY | unix.O_CREAT, policy.TargetMissing},
		{"rdonly|creat, new", "l4", unix.O_RDONLY | unix.O_CREAT, policy.TargetMissing},
		{"wronly|creat|trunc, new", "l5", unix.O_WRONLY | unix.O_CREAT | unix.O_TRUNC, policy.TargetMissing},
		{"rdwr|creat, existing", "f.txt", unix.O_RDWR | unix.O_CREAT, policy.TargetFile},
		{"wronly|creat|trunc, existing", "h.txt", unix.O_WRONLY | unix.O_CREAT | unix.O_TRUNC, policy.TargetFile},
		{"wronly|trunc, existing", "f.txt", unix.O_WRONLY | unix.O_TRUNC, policy.TargetFile},
		{"rdonly|trunc, existing", "g.bin", unix.O_RDONLY | unix.O_TRUNC, policy.TargetFile},
		{"rdonly, existing", "g.bin", unix.O_RDONLY, policy.TargetFile},
		{"rdonly|directory", "sub", unix.O_RDONLY | unix.O_DIRECTORY, policy.TargetDir},
		{"rdonly, directory", "sub", unix.O_RDONLY, policy.TargetDir},
		{"path", "g.bin", unix.O_PATH, policy.TargetFile},
	}
	same := func(p string) string { return p }
	var table strings.Builder
	for _, pc := range plans {
		t.Run(strings.ReplaceAll(pc.name, " ", "_"), func(t *testing.T) {
			f := matrixFixture(t)
			pl := hostPlanWith(t, pc.doc(f), policy.NoBaseline(), pc.opts)
			ops := make([]probeOp, len(rows))
			for i, r := range rows {
				ops[i] = probeOp{Op: "open", Path: f + "/d/" + r.file, Arg: int64(r.flags)}
			}
			res, child := probe(t, Launch{Plan: withSelf(t, pl), CloseFDs: true}, ops, nil)
			if child.err != nil || len(res) != len(rows) {
				t.Fatalf("probe: %v (%d of %d results)\nstderr: %s", child.err, len(res), len(rows), child.stderr)
			}
			fmt.Fprintf(&table, "%-26s", pc.name)
			for i, r := range rows {
				got := res[i].Errno == 0
				if !got && !deniedErrno(res[i].Errno) {
					t.Errorf("%s: errno %d, not a denial", r.name, res[i].Errno)
				}
				op := policy.Operation{Op: "open", Path: ops[i].Path, Flags: uint64(r.flags), Target: r.target}
				if want := pl.Permits(op, same); got != want {
					t.Errorf("%s: kernel allowed=%v (errno %d), Permits says %v", r.name, got, res[i].Errno, want)
				}
				op.Target = policy.TargetUnknown
				if got && !pl.Permits(op, same) {
					t.Errorf("%s: allowed by the kernel, but Permits without knowing the file calls it refused", r.name)
				}
				table.WriteString(map[bool]string{true: "A", false: "."}[got])
			}
			table.WriteString("\n")
		})
	}
	var head strings.Builder
	for i, r := range rows {
		fmt.Fprintf(&head, "  col %2d: %s\n", i+1, r.name)
	}
	t.Logf("opens, observed (A allowed, . denied), ABI %d:\n%s%s", abi, head.String(), table.String())
}

// TestExecNeedsExecuteAndRead pins what an execve needs from Landlock:
// the kernel opens the program for reading and execution, so the execute
// right alone does not run it; with read_file as well it runs.
// Plan.Permits predicts both.
func TestExecNeedsExecuteAndRead(t *testing.T) {
	requireLandlock(t, 1)
	same := func(p string) string { return p }
	for _, acc := range []policy.Access{policy.AccessExecute, policy.AccessExecute | policy.AccessReadFile} {
		f := matrixFixture(t)
		prog := f + "/d/f.txt"
		pl := hostPlan(t, policyDoc([]string{f + "/p.txt"}, nil, nil), policy.NoBaseline())
		pl.Rules = append(pl.Rules, policy.Rule{Path: prog, Access: acc,
			From: []policy.RuleSource{{Origin: policy.OriginPolicy, Axis: "execute", Pattern: prog}}})
		res, child := probe(t, Launch{Plan: withSelf(t, pl), CloseFDs: true}, []probeOp{{Op: "exec", Path: prog}}, nil)
		if child.err != nil || len(res) != 1 {
			t.Fatalf("probe: %v, stderr %s", child.err, child.stderr)
		}
		got, want := res[0].Errno == 0, pl.Permits(policy.Operation{Op: "exec", Path: prog}, same)
		if got != want || got != acc.Has(policy.AccessReadFile) {
			t.Errorf("exec with %s: kernel allowed=%v (errno %d %s), Permits says %v", acc, got, res[0].Errno, res[0].Out, want)
		}
	}
}
