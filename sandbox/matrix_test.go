package sandbox

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/policy"
	"golang.org/x/sys/unix"
)

// matrixFixture lays out, below a fresh directory F (every file a copy of
// /usr/bin/true, mode 0755, so that read, write and exec all mean
// something):
//
//	F/d/f.txt      the path the rules name
//	F/d/h.txt      matches the glob *.txt too
//	F/d/g.bin      a sibling that matches nothing
//	F/d/sub/n.txt  nested below the directory
//	F/p.txt        in the parent directory
//	F/d/new.txt    missing (named by the "missing" rules)
//	F/d/m.txt, F/d/k.bin  moved into F/d/sub and to F (rename across directories)
func matrixFixture(t *testing.T) string {
	t.Helper()
	prog, err := os.ReadFile("/usr/bin/true")
	if err != nil {
		t.Skipf("needs /usr/bin/true: %v", err)
	}
	f := fixtureDir(t)
	for _, name := range []string{"d/f.txt", "d/h.txt", "d/g.bin", "d/sub/n.txt", "p.txt", "d/m.txt", "d/k.bin"} {
		p := filepath.Join(f, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, prog, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// matrixCell is one operation on one path and the rights it needs.
type matrixCell struct {
	name string // e.g. "read sibling"
	op   probeOp
	need func(allowed func(string) policy.Access) bool
}

func has(p string, r policy.Access) func(func(string) policy.Access) bool {
	return func(a func(string) policy.Access) bool { return a(p).Has(r) }
}

// matrixCells lists the operations, in the order the probe runs them
// (those that change the tree last).
func matrixCells(f string) []matrixCell {
	paths := []struct{ label, p string }{
		{"allowed", f + "/d/f.txt"}, {"glob-mate", f + "/d/h.txt"}, {"sibling", f + "/d/g.bin"},
		{"nested", f + "/d/sub/n.txt"}, {"parent", f + "/p.txt"},
	}
	var cells []matrixCell
	for _, pp := range paths {
		cells = append(cells,
			matrixCell{"read " + pp.label, probeOp{Op: "read", Path: pp.p}, has(pp.p, policy.AccessReadFile)},
			matrixCell{"write " + pp.label, probeOp{Op: "write", Path: pp.p}, has(pp.p, policy.AccessWriteFile)},
			matrixCell{"exec " + pp.label, probeOp{Op: "exec", Path: pp.p}, has(pp.p, policy.AccessExecute)},
		)
	}
	create := func(label, p string) matrixCell {
		return matrixCell{"create " + label, probeOp{Op: "create", Path: p}, func(a func(string) policy.Access) bool {
			return a(path.Dir(p)).Has(policy.AccessMakeReg) && a(p).Has(policy.AccessWriteFile)
		}}
	}
	dirOp := func(name, op, p, arg string, r policy.Access) matrixCell {
		return matrixCell{name, probeOp{Op: op, Path: p, Path2: arg}, has(path.Dir(p), r)}
	}
	cells = append(cells,
		matrixCell{"list dir", probeOp{Op: "list", Path: f + "/d"}, has(f+"/d", policy.AccessReadDir)},
		matrixCell{"list nested dir", probeOp{Op: "list", Path: f + "/d/sub"}, has(f+"/d/sub", policy.AccessReadDir)},
		matrixCell{"list parent", probeOp{Op: "list", Path: f}, has(f, policy.AccessReadDir)},
		create("missing (named)", f+"/d/new.txt"),
		create("new sibling", f+"/d/c.bin"),
		create("new nested", f+"/d/sub/c.txt"),
		create("in parent", f+"/c.txt"),
		dirOp("mkdir in dir", "mkdir", f+"/d/m", "", policy.AccessMakeDir),
		matrixCell{"move into nested dir", probeOp{Op: "rename", Path: f + "/d/m.txt", Path2: f + "/d/sub/m.txt"},
			func(a func(string) policy.Access) bool {
				return a(f+"/d").Has(policy.AccessRemoveFile|policy.AccessRefer) && a(f+"/d/sub").Has(policy.AccessMakeReg|policy.AccessRefer)
			}},
		matrixCell{"move to parent dir", probeOp{Op: "rename", Path: f + "/d/k.bin", Path2: f + "/k.bin"},
			func(a func(string) policy.Access) bool {
				return a(f+"/d").Has(policy.AccessRemoveFile|policy.AccessRefer) && a(f).Has(policy.AccessMakeReg|policy.AccessRefer)
			}},
		dirOp("delete sibling", "delete", f+"/d/g.bin", "", policy.AccessRemoveFile),
		dirOp("delete nested", "delete", f+"/d/sub/n.txt", "", policy.AccessRemoveFile),
		dirOp("delete in parent", "delete", f+"/p.txt", "", policy.AccessRemoveFile),
		dirOp("delete glob-mate", "delete", f+"/d/h.txt", "", policy.AccessRemoveFile),
		// last: renaming the named file within its directory
		matrixCell{"rename allowed", probeOp{Op: "rename", Path: f + "/d/f.txt", Path2: f + "/d/f.txt.r"},
			has(f+"/d", policy.AccessRemoveFile|policy.AccessMakeReg)},
	)
	return cells
}

// matrixShapes are the rule forms, each given as a pattern below F.
var matrixShapes = []struct{ name, rel string }{
	{"exact file", "/d/f.txt"},
	{"exact dir", "/d"},
	{"glob", "/d/*.txt"},
	{"recursive", "/d/**"},
	{"missing", "/d/new.txt"},
}

// matrixExpect pins the semantics the issue spells out, independent of
// the plan compiler: shape/axis → cell → allowed.
var matrixExpect = map[string]map[string]bool{
	"exact file/read":    {"read allowed": true, "read sibling": false, "read glob-mate": false, "read parent": false, "exec allowed": false, "write allowed": false, "list dir": false},
	"recursive/read":     {"read nested": true, "list nested dir": true, "read parent": false, "create new sibling": false},
	"exact dir/read":     {"read nested": true, "list dir": true},
	"glob/read":          {"read allowed": true, "read glob-mate": true, "read sibling": false, "read nested": false},
	"exact file/write":   {"write allowed": true, "read allowed": false, "write sibling": false, "create new sibling": false, "rename allowed": false},
	"recursive/write":    {"write nested": true, "create new nested": true, "delete sibling": true, "rename allowed": true, "move into nested dir": true, "move to parent dir": false, "read allowed": false, "create in parent": false},
	"missing/write":      {"create missing (named)": true, "create in parent": false, "delete sibling": false},
	"glob/write":         {"write allowed": true, "create missing (named)": true, "delete sibling": false},
	"exact file/execute": {"exec allowed": true, "read allowed": true, "exec sibling": false, "write allowed": false},
	"recursive/execute":  {"exec nested": true, "exec parent": false},
	"missing/read":       {"create missing (named)": false, "read allowed": false},
}

// TestSemanticsMatrix runs every operation of matrixCells on a fresh
// fixture for each rule shape and axis under a real Landlock domain, and
// checks that the observed outcome equals what the plan predicts (and,
// where matrixExpect says so, what the design says).
func TestSemanticsMatrix(t *testing.T) {
	abi := requireLandlock(t, 1)
	table := semanticsMatrix(t, abi, policy.PlanOptions{}, matrixExpect, "the design")
	var head strings.Builder
	for i, c := range matrixCells("/F") {
		fmt.Fprintf(&head, "  col %2d: %s\n", i+1, c.name)
	}
	t.Logf("observed outcomes (A allowed, . denied), ABI %d:\n%s%s", abi, head.String(), table)
}

// semanticsMatrix runs every operation of matrixCells on a fresh fixture
// for each rule shape and axis under a real Landlock domain of ABI abi,
// with plans compiled with opts, and checks that each observed outcome
// equals what the plan predicts and, where expect says so, what source
// (the document expect comes from) says. It returns the outcome table,
// a row per shape and axis (A allowed, . denied).
func semanticsMatrix(t *testing.T, abi int, opts policy.PlanOptions, expect map[string]map[string]bool, source string) string {
	t.Helper()
	enf := EnforcementFor(abi)
	var table strings.Builder
	for _, shape := range matrixShapes {
		for _, axis := range policy.Axes {
			name := shape.name + "/" + axis.String()
			t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
				f := matrixFixture(t)
				lists := [3][]string{}
				lists[axis] = []string{f + shape.rel}
				pl := hostPlanWith(t, policyDoc(lists[0], lists[1], lists[2]), policy.NoBaseline(), opts)
				allowed := func(p string) policy.Access { return pl.Allowed(p) | enf.Unenforced }
				cells := matrixCells(f)
				got := runMatrixCells(t, pl, cells)
				fmt.Fprintf(&table, "%-22s", name)
				for i, c := range cells {
					if want := c.need(allowed); got[i] != want {
						t.Errorf("%s: observed allowed=%v, plan predicts %v", c.name, got[i], want)
					}
					if exp, ok := expect[name][c.name]; ok && exp != got[i] {
						t.Errorf("%s: observed allowed=%v, %s says %v", c.name, got[i], source, exp)
					}
					table.WriteString(map[bool]string{true: "A", false: "."}[got[i]])
				}
				table.WriteString("\n")
			})
		}
	}
	return table.String()
}

// deniedErrno reports whether errno is how the kernel says "not allowed".
func deniedErrno(e int) bool {
	switch unix.Errno(e) {
	case unix.EACCES, unix.EPERM, unix.EXDEV:
		return true
	}
	return false
}

// TestBaselineOnlyPolicyRunsShell: with the default baseline and an empty
// policy, /bin/sh -c true runs; a program outside the baseline does not.
func TestBaselineOnlyPolicyRunsShell(t *testing.T) {
	requireLandlock(t, 1)
	pl := hostPlan(t, policyDoc(nil, nil, nil), policy.DefaultBaseline())
	res := runChild(t, Launch{Path: "/bin/sh", Args: []string{"sh", "-c", "true"}, Plan: pl, CloseFDs: true}, nil)
	if res.err != nil || res.status != 0 {
		t.Fatalf("/bin/sh -c true: status %d, err %v, stderr %s", res.status, res.err, res.stderr)
	}
	res = runChild(t, Launch{Path: "/bin/sh", Args: []string{"sh", "-c", "/usr/bin/id -u"}, Plan: pl, CloseFDs: true}, nil)
	if res.status != 126 {
		t.Fatalf("/bin/sh -c /usr/bin/id: status %d (want 126, permission denied), stderr %s", res.status, res.stderr)
	}
}

// TestExecNeedsExecuteRule: a readable program is not runnable, and the
// error says why.
func TestExecNeedsExecuteRule(t *testing.T) {
	requireLandlock(t, 1)
	f := matrixFixture(t)
	prog := f + "/d/f.txt"
	pl := hostPlan(t, policyDoc([]string{prog}, nil, nil), policy.NoBaseline())
	res := runChild(t, Launch{Path: prog, Args: []string{prog}, Plan: pl}, nil)
	var ie *InitError
	if res.err == nil || !strings.Contains(res.err.Error(), "no execute rule") {
		t.Fatalf("err = %v (%T), want an exec refusal naming the execute rule", res.err, ie)
	}
	pl = hostPlan(t, policyDoc(nil, nil, []string{prog}), policy.NoBaseline())
	if res := runChild(t, Launch{Path: prog, Args: []string{prog}, Plan: pl}, nil); res.err != nil || res.status != 0 {
		t.Fatalf("with an execute rule: status %d err %v", res.status, res.err)
	}
}
