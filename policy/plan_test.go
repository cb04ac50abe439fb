package policy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// planFixture builds a small environment root:
//
//	/d/f.txt /d/g.txt /d/h.bin /d/sub/n.txt /d/link -> f.txt
//	/d/dangling -> nope.txt  /e/  /x.txt  /dev/tty
func planFixture(t testing.TB) *Root {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"d/f.txt", "d/g.txt", "d/h.bin", "d/sub/n.txt", "x.txt", "dev/tty", "d/.hidden"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "e"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"d/link": "f.txt", "d/dangling": "nope.txt"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	root, err := NewRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func mustPolicy(t testing.TB, doc string) *Policy {
	t.Helper()
	pol, err := ParsePolicy([]byte(doc), "test.json")
	if err != nil {
		t.Fatalf("policy %s: %v", doc, err)
	}
	return pol
}

// policyRules returns "path[/]: rights" for every rule with a policy
// source (a trailing "/" marks a directory rule).
func policyRules(pl *Plan) []string {
	var out []string
	for _, r := range pl.Rules {
		var acc Access
		for _, s := range r.From {
			if s.Origin == OriginPolicy {
				acc |= s.Access
			}
		}
		if acc == 0 {
			continue
		}
		p := r.Path
		if r.Dir && p != "/" {
			p += "/"
		}
		out = append(out, p+": "+acc.String())
	}
	return out
}

// checkPlan checks pl's policy rules (as policyRules lists them), its
// widenings (kind@path) and its sorted warning codes.
func checkPlan(t *testing.T, pl *Plan, rules, wider, warnings []string) {
	t.Helper()
	if got := policyRules(pl); !reflect.DeepEqual(got, rules) {
		t.Errorf("rules\n got %q\nwant %q", got, rules)
	}
	var gotWider []string
	for _, w := range pl.Wider {
		gotWider = append(gotWider, w.Kind+"@"+w.Path)
	}
	if !reflect.DeepEqual(gotWider, wider) {
		t.Errorf("wider\n got %q\nwant %q", gotWider, wider)
	}
	var warns []string
	for _, w := range pl.Warnings {
		warns = append(warns, w.Code)
	}
	sort.Strings(warns)
	if !reflect.DeepEqual(warns, warnings) {
		t.Errorf("warnings\n got %q\nwant %q", warns, warnings)
	}
}

// planCase is a policy and the plan compiled from it, as checkPlan
// checks it.
type planCase struct {
	name     string
	policy   string
	rules    []string
	wider    []string // kind@path
	warnings []string // code, sorted
}

func TestCompilePlan(t *testing.T) {
	root := planFixture(t)
	tests := []planCase{
		{"read exact file", `{"read":["/d/f.txt"],"write":[],"execute":[]}`,
			[]string{"/d/f.txt: read_file"}, nil, nil},
		{"read exact dir covers hierarchy", `{"read":["/d"],"write":[],"execute":[]}`,
			[]string{"/d/: read_file,read_dir"}, []string{"directory-hierarchy@/d"}, nil},
		{"read recursive is the directory", `{"read":["/d/**"],"write":[],"execute":[]}`,
			[]string{"/d/: read_file,read_dir"}, nil, nil},
		{"read glob is its current matches", `{"read":["/d/*.txt"],"write":[],"execute":[]}`,
			[]string{"/d/f.txt: read_file", "/d/g.txt: read_file"}, nil, nil},
		{"glob star matches dotfiles", `{"read":["/d/.h*"],"write":[],"execute":[]}`,
			[]string{"/d/.hidden: read_file"}, nil, nil},
		{"glob in a middle segment", `{"read":["/*/sub/*"],"write":[],"execute":[]}`,
			[]string{"/d/sub/n.txt: read_file"}, nil, nil},
		{"read missing warns", `{"read":["/d/none.txt","/q/*"],"write":[],"execute":[]}`,
			nil, nil, []string{"no-match", "no-match"}},
		{"symlink rule lands on its target", `{"read":["/d/link"],"write":[],"execute":[]}`,
			[]string{"/d/f.txt: read_file"}, []string{"symlink-target@/d/f.txt"}, nil},
		{"write existing file", `{"read":[],"write":["/d/f.txt"],"execute":[]}`,
			[]string{"/d/f.txt: write_file,truncate,resolve_unix"}, nil, nil},
		{"write missing file creates in parent", `{"read":[],"write":["/d/new.txt"],"execute":[]}`,
			[]string{"/d/: write_file,make_reg,truncate"}, []string{"create-in-ancestor@/d"}, nil},
		{"write missing deep file creates dirs in nearest ancestor", `{"read":[],"write":["/d/a/b/x.txt"],"execute":[]}`,
			[]string{"/d/: write_file,make_dir,make_reg,truncate"}, []string{"create-in-ancestor@/d"}, nil},
		{"write missing recursive dir", `{"read":[],"write":["/e/out/**"],"execute":[]}`,
			[]string{"/e/: write_file,remove_dir,remove_file,make_dir,make_reg,make_sock,make_fifo,make_sym,refer,truncate,resolve_unix"},
			[]string{"create-in-ancestor@/e"}, []string{"no-match"}},
		{"never create at root", `{"read":[],"write":["/newtop/x"],"execute":[]}`,
			nil, nil, []string{"create-at-root", "no-match"}},
		{"write recursive dir", `{"read":[],"write":["/d/**"],"execute":[]}`,
			[]string{"/d/: write_file,remove_dir,remove_file,make_dir,make_reg,make_sock,make_fifo,make_sym,refer,truncate,resolve_unix"}, nil, nil},
		{"write root is loud", `{"read":[],"write":["/**"],"execute":[]}`,
			[]string{"/: write_file,remove_dir,remove_file,make_dir,make_reg,make_sock,make_fifo,make_sym,refer,truncate,resolve_unix"}, nil, []string{"write-root"}},
		{"write glob without match creates in its directory", `{"read":[],"write":["/d/*.log"],"execute":[]}`,
			[]string{"/d/: write_file,make_reg,truncate"}, []string{"create-in-ancestor@/d"}, []string{"no-match"}},
		{"write glob with matches", `{"read":[],"write":["/d/*.txt"],"execute":[]}`,
			[]string{"/d/: write_file,make_reg,truncate", "/d/f.txt: write_file,truncate,resolve_unix", "/d/g.txt: write_file,truncate,resolve_unix"},
			[]string{"create-in-ancestor@/d"}, nil},
		{"write through dangling symlink creates its target", `{"read":[],"write":["/d/dangling"],"execute":[]}`,
			[]string{"/d/: write_file,make_reg,truncate"}, []string{"create-in-ancestor@/d", "symlink-target@/d"}, nil},
		{"write device gets ioctl", `{"read":[],"write":["/dev/tty"],"execute":[]}`,
			[]string{"/dev/tty: write_file,truncate,ioctl_dev,resolve_unix"}, nil, nil},
		{"execute implies read", `{"read":[],"write":[],"execute":["/d/h.bin"]}`,
			[]string{"/d/h.bin: execute,read_file"}, []string{"execute-implies-read@/d/h.bin"}, nil},
		{"execute recursive", `{"read":[],"write":[],"execute":["/d/**"]}`,
			[]string{"/d/: execute,read_file"}, []string{"execute-implies-read@/d"}, nil},
		{"axes merge on one path", `{"read":["/d/f.txt"],"write":["/d/f.txt"],"execute":["/d/f.txt"]}`,
			[]string{"/d/f.txt: execute,write_file,read_file,truncate,resolve_unix"}, []string{"execute-implies-read@/d/f.txt"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl, err := CompilePlan(mustPolicy(t, tc.policy), NoBaseline(), root)
			if err != nil {
				t.Fatal(err)
			}
			checkPlan(t, pl, tc.rules, tc.wider, tc.warnings)
		})
	}
}

func TestWriteRootWarningIsLoud(t *testing.T) {
	pl, err := CompilePlan(mustPolicy(t, `{"read":[],"write":["/"],"execute":[]}`), NoBaseline(), planFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.LoudWarnings()) != 1 || pl.LoudWarnings()[0].Code != WarnWriteRoot {
		t.Fatalf("loud warnings = %+v", pl.LoudWarnings())
	}
}

func TestPlanAllowed(t *testing.T) {
	pl, err := CompilePlan(mustPolicy(t, `{"read":["/d/**","/x.txt"],"write":["/d/f.txt"],"execute":[]}`), NoBaseline(), planFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want Access
	}{
		{"/d", accessReadDir},
		{"/d/sub/n.txt", accessReadDir},
		{"/d/f.txt", accessReadDir | accessWriteFile},
		{"/d/g.txt", accessReadDir},
		{"/x.txt", AccessReadFile},
		{"/x.txt/below", 0}, // a file rule does not cover paths below it
		{"/e", 0},
		{"/", 0},
		{"/dd/f.txt", 0}, // a prefix that is not a path ancestor
	}
	for _, tc := range tests {
		if got := pl.Allowed(tc.path); got != tc.want {
			t.Errorf("Allowed(%s) = %v, want %v", tc.path, got, tc.want)
		}
	}
}

func TestPlanJSONRoundTrip(t *testing.T) {
	pl, err := CompilePlan(mustPolicy(t, `{"read":["/d"],"write":["/d/new.txt"],"execute":["/d/h.bin"]}`), NoBaseline(), planFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(pl)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"access":["read_file","read_dir"]`) {
		t.Errorf("rights are not written by name: %s", data)
	}
	var back Plan
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, pl) {
		t.Errorf("round trip changed the plan:\n got %+v\nwant %+v", back, *pl)
	}
}

func TestBaselines(t *testing.T) {
	root := planFixture(t)
	if pl, err := CompilePlan(nil, NoBaseline(), root); err != nil || len(pl.Rules) != 0 {
		t.Fatalf("none baseline on an empty fixture: %v rules, err %v", pl, err)
	}
	spec := &Spec{Source: "spec.json", Implicit: mustPermissions([3][]string{Write: {"/e/**"}})}
	pl, err := CompilePlan(nil, SpecBaseline(spec), root)
	if err != nil {
		t.Fatal(err)
	}
	if r := pl.Rule("/e"); r == nil || !r.Access.Has(AccessMakeReg) || r.From[0].Origin != OriginBaseline {
		t.Fatalf("spec baseline rule = %+v", r)
	}
	if len(pl.Wider) != 0 || len(pl.Warnings) != 0 {
		t.Errorf("the baseline is not the policy: wider %v, warnings %v", pl.Wider, pl.Warnings)
	}
	for _, name := range []string{"", "default", "none"} {
		if _, err := LoadBaseline(name); err != nil {
			t.Errorf("LoadBaseline(%q): %v", name, err)
		}
	}
	if _, err := LoadBaseline(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("LoadBaseline of a missing spec file succeeded")
	}
}

// TestDefaultBaselineOnHost checks the default plan on this machine: the
// loader is executable, libraries readable, /bin/sh executable.
func TestDefaultBaselineOnHost(t *testing.T) {
	root, err := NewRoot("/")
	if err != nil {
		t.Fatal(err)
	}
	pl, err := CompilePlan(nil, DefaultBaseline(), root)
	if err != nil {
		t.Fatal(err)
	}
	sh := root.Realpath("/bin/sh")
	if _, err := os.Stat(sh); err == nil && !pl.Allowed(sh).Has(AccessExecute) {
		t.Errorf("/bin/sh (%s) is not executable in the default plan", sh)
	}
	loaders, _ := filepath.Glob("/lib64/ld-linux*.so*")
	for _, l := range loaders {
		if rp := root.Realpath(l); !pl.Allowed(rp).Has(AccessExecute | AccessReadFile) {
			t.Errorf("loader %s (%s) is not executable", l, rp)
		}
	}
	if !pl.Allowed("/dev/null").Has(AccessReadFile | AccessWriteFile) {
		t.Error("/dev/null is not read-write")
	}
	if pl.Allowed(root.Realpath("/etc/shadow")) != 0 {
		t.Error("/etc/shadow is granted by the default baseline")
	}
}

func TestAccessNames(t *testing.T) {
	if got := (AccessReadFile | AccessRefer).String(); got != "read_file,refer" {
		t.Errorf("String = %q", got)
	}
	if Access(0).String() != "none" {
		t.Error("empty set")
	}
	for i := range accessNames {
		a := Access(1) << i
		back, err := ParseAccess(a.String())
		if err != nil || back != a {
			t.Errorf("ParseAccess(%s) = %v, %v", a, back, err)
		}
	}
	var a Access
	if err := json.Unmarshal([]byte(`["read_file","bogus"]`), &a); err == nil {
		t.Error("an unknown right name was accepted")
	}
}
