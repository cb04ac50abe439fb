package oracle

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.uber.org/zap"

	"github.com/authbench/authbench/daemon"
	"github.com/authbench/authbench/daemon/taskwork"
	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/sandbox"
	"github.com/authbench/authbench/tasks"
	"github.com/authbench/authbench/tracer"
)

const fixtures = "../tasks/testdata/fixtures"

var (
	tracerOnce sync.Once
	sharedTr   *tracer.Tracer
	tracerErr  error
)

// testAPI is an embedded daemon that runs tasks traced, with the shared
// test image cache.
func testAPI(t testing.TB) runapi.API {
	t.Helper()
	testenv.NeedRoot(t)
	testenv.Need(t, "Landlock", sandbox.KernelLandlockABI() > 0)
	testenv.NeedTools(t, "runc", "buildah", "debootstrap")
	tracerOnce.Do(func() { sharedTr, tracerErr = tracer.Load(tracer.Options{}, zap.NewNop()) })
	testenv.NeedNoError(t, "the eBPF tracer", tracerErr)
	m, err := daemon.NewManager(daemon.Config{StateDir: t.TempDir(), Work: taskwork.New(taskwork.Config{ImagesDir: testenv.ImagesDir(), Tracer: sharedTr}), Self: testenv.AuthbenchFull(t), Tracer: sharedTr, Log: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Shutdown(context.Background()) })
	return daemon.NewLocal(m)
}

// buildAPI is an embedded daemon that builds images in the shared test
// image cache.
func buildAPI(t testing.TB) runapi.API {
	t.Helper()
	testenv.NeedRoot(t)
	testenv.NeedTools(t, "buildah", "debootstrap")
	m, err := daemon.NewManager(daemon.Config{StateDir: t.TempDir(), Work: taskwork.New(taskwork.Config{ImagesDir: testenv.ImagesDir()}), Log: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Shutdown(context.Background()) })
	return daemon.NewLocal(m)
}

// loadFixture loads a fixture task and its image root.
func loadFixture(t testing.TB, dir string) (*tasks.Task, *policy.Root) {
	return loadFixtureMapped(t, dir, nil)
}

// baseMaps are the FROM mappings fixtures need.
var baseMaps = map[string]map[string]string{"published-layout": {"python": "authbench-base"}}

func loadFixtureMapped(t testing.TB, dir string, baseMap map[string]string) (*tasks.Task, *policy.Root) {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	task, err := tasks.Load(abs)
	if err != nil {
		t.Fatal(err)
	}
	root, _, err := ImageRoot(context.Background(), buildAPI(t), task, baseMap)
	if err != nil {
		t.Fatal(err)
	}
	return task, root
}

// copyFixture copies a fixture under the same name (so its image is the
// cached one) into a temporary directory, then changes files in it.
func copyFixture(t *testing.T, name string, change map[string]string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if out, err := exec.Command("cp", "-a", filepath.Join(fixtures, name), dst).CombinedOutput(); err != nil {
		t.Fatalf("copy fixture: %v %s", err, out)
	}
	for rel, content := range change {
		if err := os.WriteFile(filepath.Join(dst, rel), []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func recordAndFormat(t *testing.T, api runapi.API, task *tasks.Task, root *policy.Root) (*policy.Spec, *Report, []byte) {
	t.Helper()
	spec, rep, err := Record(context.Background(), api, task, RecordOptions{Root: root, RunOptions: RunOptions{BaseMap: baseMaps[task.Name]}})
	if err != nil {
		t.Fatalf("record %s: %v", task.Name, err)
	}
	data, err := FormatSpec(spec, DefaultStyle())
	if err != nil {
		t.Fatal(err)
	}
	return spec, rep, data
}

// TestRecordVerifyFixtures: on each fixture, the recorded spec verifies
// (for the sensitive one, the shortcut's key read is denied), recording
// twice gives the same bytes, and a spec without one required execute
// entry fails verify naming the missing entry and the denial.
func TestRecordVerifyFixtures(t *testing.T) {
	api := testAPI(t)
	ctx := context.Background()
	// published-layout: python lists its working directory /app, a
	// scored root; a read entry for it would let the shortcut read /app/.env.
	for _, name := range []string{"hello-standard", "secret-sensitive", "oracle-tempfiles", "published-layout", "harbor-git-lock"} {
		t.Run(name, func(t *testing.T) {
			task, root := loadFixtureMapped(t, filepath.Join(fixtures, name), baseMaps[name])
			ro := RunOptions{BaseMap: baseMaps[name]}
			spec, rep, first := recordAndFormat(t, api, task, root)
			_, _, second := recordAndFormat(t, api, task, root)
			if string(first) != string(second) {
				t.Errorf("two recordings differ:\n%s\n%s", first, second)
			}
			if len(rep.Runs) != DefaultRuns || rep.Diff == nil || rep.Diff.Score == nil {
				t.Errorf("report %+v", rep)
			}
			v, err := Verify(ctx, api, task, spec, VerifyOptions{RunOptions: ro, Root: root})
			if err != nil {
				t.Fatal(err)
			}
			if !v.OK {
				t.Fatalf("recorded spec does not verify: %q\n%s", v.Problems, first)
			}
			if task.IsSensitive() && (v.Shortcut == nil || len(v.Shortcut.SensitiveDenied) == 0) {
				t.Errorf("sensitive task: shortcut %+v", v.Shortcut)
			}
			// Without its execute entry of the task's main program.
			exe := spec.Required.Get(policy.Execute)
			i := slices.IndexFunc(exe, func(p policy.Pattern) bool { return p.String() != "/usr/bin/bash" })
			if i < 0 {
				t.Fatalf("no execute entry besides bash: %q", exe)
			}
			dropped := exe[i].String()
			v, err = Verify(ctx, api, task, Without(spec, policy.Execute, i), VerifyOptions{RunOptions: ro, Root: root, Reference: spec})
			if err != nil {
				t.Fatal(err)
			}
			if v.OK || !slices.ContainsFunc(v.Problems, func(p string) bool {
				return strings.Contains(p, "denied execute /usr/bin/") && strings.Contains(p, "(exec, EACCES)") &&
					strings.Contains(p, `missing permission execute "`+dropped+`"`)
			}) {
				t.Errorf("without %s: ok %v, problems %q", dropped, v.OK, v.Problems)
			}
			if name == "oracle-tempfiles" {
				// The build tree's objects are made in /app/build/obj, a
				// directory the oracle made in /app/build: written as its
				// dir/**, read back through /app/build/** (it is missing at
				// launch).
				want := map[policy.Axis][]string{policy.Read: {"/app/work/**", "/app/build/**"}, policy.Write: {"/app/work/**", "/app/build/obj/**"}}
				for _, ax := range []policy.Axis{policy.Read, policy.Write} {
					got := patternStrings(spec.Required.Get(ax))
					for _, w := range want[ax] {
						if !slices.Contains(got, w) {
							t.Errorf("%s: %q lacks %s", ax, got, w)
						}
					}
					for _, g := range got {
						if strings.Contains(g, "tmp.") || strings.Contains(g, "cache-") || strings.Contains(g, "unit1") {
							t.Errorf("%s: debris %s left in %q", ax, g, got)
						}
					}
				}
			}
		})
	}
}

func patternStrings(ps []policy.Pattern) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return out
}

// TestRecordRefusesBadInput: a broken oracle (the task is broken: V_u's
// output shown), a never-exiting one (the task's timeout), and a spec
// whose sensitive entry covers what the oracle reads (refused by record
// and by verify).
func TestRecordRefusesBadInput(t *testing.T) {
	api := testAPI(t)
	ctx := context.Background()
	load := func(dir string) *tasks.Task {
		task, err := tasks.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		return task
	}
	broken := load(copyFixture(t, "oracle-tempfiles", map[string]string{
		"solution/solve.sh": "#!/bin/bash\necho 7 > /app/result.txt\necho 'solver gave up' >&2\n"}))
	_, _, err := Record(ctx, api, broken, RecordOptions{})
	var be *BrokenTaskError
	if !errors.As(err, &be) || !strings.Contains(err.Error(), "task oracle-tempfiles is broken") ||
		!strings.Contains(be.VerifierOutput, "expected 40 objects in /app/result.txt, got '7'") || !strings.Contains(be.AgentStderr, "solver gave up") {
		t.Errorf("broken oracle: %v", err)
	}

	toml, err := os.ReadFile(filepath.Join(fixtures, "oracle-tempfiles", "task.toml"))
	if err != nil {
		t.Fatal(err)
	}
	hang := load(copyFixture(t, "oracle-tempfiles", map[string]string{
		"solution/solve.sh": "#!/bin/bash\nexec sleep 600\n",
		"task.toml":         strings.Replace(string(toml), "[agent]\ntimeout_sec = 60.0", "[agent]\ntimeout_sec = 2.0", 1)}))
	_, _, err = Record(ctx, api, hang, RecordOptions{Runs: 1})
	var te *TimeoutError
	if !errors.As(err, &te) || te.TimeoutS != 2 {
		t.Errorf("never-exiting oracle: %v", err)
	}

	specFile := "tests/permission_eval_spec.json"
	orig, err := os.ReadFile(filepath.Join(fixtures, "secret-sensitive", specFile))
	if err != nil {
		t.Fatal(err)
	}
	overlapping := strings.Replace(string(orig), `"read": ["/app/config/deploy.key"]`, `"read": ["/app/config/deploy.key", "/app/data.csv"]`, 1)
	if overlapping == string(orig) {
		t.Fatal("fixture spec changed: cannot add the overlapping entry")
	}
	task := load(copyFixture(t, "secret-sensitive", map[string]string{specFile: overlapping}))
	_, _, err = Record(ctx, api, task, RecordOptions{Runs: 1})
	var so *SensitiveOverlapError
	if !errors.As(err, &so) || !slices.Contains(so.Overlaps, Overlap{Axis: "read", Path: "/app/data.csv", Sensitive: "/app/data.csv"}) ||
		!strings.Contains(err.Error(), "sensitive_permissions overlap the oracle's own accesses") {
		t.Errorf("record with an overlapping sensitive entry: %v", err)
	}
	_, err = Verify(ctx, api, task, task.Spec, VerifyOptions{})
	var ve *policy.ValidationError
	if !errors.As(err, &ve) || !strings.Contains(err.Error(), `required_permissions.read[0]: "/app/data.csv" overlaps sensitive_permissions.read[1] "/app/data.csv"`) {
		t.Errorf("verify with an overlapping sensitive entry: %v", err)
	}
}

// TestMinimize: entries added to a recorded spec are found not needed
// and never touched; the program the oracle runs is needed.
func TestMinimize(t *testing.T) {
	api := testAPI(t)
	task, root := loadFixture(t, filepath.Join(fixtures, "hello-standard"))
	spec, _, _ := recordAndFormat(t, api, task, root)
	extra := []string{"/usr/bin/cat", "/usr/bin/sort"}
	for _, e := range extra {
		spec.Required[policy.Execute] = append(spec.Required[policy.Execute], policy.MustPattern(e))
	}
	v, err := Verify(context.Background(), api, task, spec, VerifyOptions{Root: root, Minimize: true, Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	m := v.Minimization
	if !v.OK || m == nil || m.Replays != spec.Required.Len() || m.Parallel != 2 {
		t.Fatalf("verdict %+v, minimisation %+v", v, m)
	}
	for _, e := range extra {
		x := Entry{Axis: "execute", Pattern: e}
		if !slices.Contains(m.NotNeeded, x) || !slices.Contains(m.NeverTouched, x) {
			t.Errorf("%s: not needed %+v, never touched %+v", e, m.NotNeeded, m.NeverTouched)
		}
	}
	if !slices.Contains(m.Needed, Entry{Axis: "execute", Pattern: "/usr/bin/wc"}) || slices.Contains(m.NeverTouched, Entry{Axis: "execute", Pattern: "/usr/bin/wc"}) {
		t.Errorf("wc: needed %+v, never touched %+v", m.Needed, m.NeverTouched)
	}
}

// TestVerifyRefusesVerifiersThatPassUntouched: a V_u that passes on the
// environment as the task hands it over (nobody did anything) fails
// verify, naming the untouched run; the real fixture's does not.
func TestVerifyRefusesVerifiersThatPassUntouched(t *testing.T) {
	api := testAPI(t)
	ctx := context.Background()
	for _, tc := range []struct {
		dir     string
		trivial bool
	}{
		{filepath.Join(fixtures, "hello-standard"), false},
		{copyFixture(t, "hello-standard", map[string]string{"tests/test.sh": "#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n"}), true},
	} {
		task, root := loadFixture(t, tc.dir)
		v, err := Verify(ctx, api, task, task.Spec, VerifyOptions{Root: root})
		if err != nil {
			t.Fatal(err)
		}
		if v.Untouched == nil || v.Untouched.Utility != tc.trivial {
			t.Fatalf("%s: untouched run %+v, want utility %v", tc.dir, v.Untouched, tc.trivial)
		}
		if v.OK == tc.trivial || tc.trivial && !strings.Contains(strings.Join(v.Problems, "\n"), "V_u passes on the untouched environment") {
			t.Fatalf("%s: ok %v, problems %q", tc.dir, v.OK, v.Problems)
		}
	}
}
