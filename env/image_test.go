package env

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/authbench/authbench/env/imagemeta"
	"github.com/authbench/authbench/internal/testenv"

	"github.com/authbench/authbench/tasks"
)

// The base image is slow to make (debootstrap), so every test run shares
// one images directory, kept between runs: AUTHBENCH_TEST_IMAGES, else
// /var/cache/authbench-test/images. Keys are content hashes, so a stale
// cache is never reused.
func testStore(t testing.TB) Store { return Store{Dir: testenv.ImagesDir()} }

var (
	baseOnce sync.Once
	baseImg  *BaseImage
	baseErr  error
)

// needBase builds (or finds) the test base image and imports it into
// buildah.
func needBase(t testing.TB) (Store, Builder, *BaseImage) {
	t.Helper()
	needRoot(t)
	need(t, "debootstrap", haveBin("debootstrap"))
	need(t, "buildah", haveBin("buildah"))
	s := testStore(t)
	b := NewBuilder(imagemeta.Buildah, s)
	baseOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		var built bool
		baseImg, built, baseErr = BuildBase(ctx, s, DefaultBaseConfig(), nil)
		if baseErr == nil {
			_, baseErr = ImportBase(ctx, s, b, baseImg, nil)
		}
		if baseErr == nil && built {
			fmt.Fprintf(os.Stderr, "built test base image %s in %.1fs\n", baseImg.Key, baseImg.BuildSeconds)
		}
	})
	if baseErr != nil {
		t.Fatalf("base image: %v", baseErr)
	}
	return s, b, baseImg
}

func fixture(t testing.TB, name string) *tasks.Task {
	t.Helper()
	task, err := tasks.Load(filepath.Join("..", "tasks", "testdata", "fixtures", name))
	if err != nil {
		t.Fatal(err)
	}
	return task
}

func TestBuildBaseIsIdempotent(t *testing.T) {
	s, b, img := needBase(t)
	start := time.Now()
	again, built, err := BuildBase(context.Background(), s, DefaultBaseConfig(), nil)
	if err != nil || built || again.Key != img.Key {
		t.Fatalf("second BuildBase: built=%v err=%v", built, err)
	}
	imported, err := ImportBase(context.Background(), s, b, img, nil)
	if err != nil || imported {
		t.Fatalf("second ImportBase: imported=%v err=%v", imported, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("no-op took %v", d)
	}
	for _, p := range []string{"usr/bin/python3", "usr/bin/pytest-3", "usr/bin/git", "usr/bin/jq", "usr/bin/sqlite3", "usr/bin/curl", "usr/bin/gcc", "usr/bin/make", "usr/bin/setfacl", "usr/bin/ps", "usr/bin/file", "etc/ssl/certs/ca-certificates.crt", "usr/bin/python"} {
		if _, err := os.Stat(filepath.Join(img.Rootfs, p)); err != nil {
			t.Errorf("base lacks %s: %v", p, err)
		}
	}
	if debs, _ := filepath.Glob(filepath.Join(img.Rootfs, "var/cache/apt/archives/*.deb")); len(debs) != 0 {
		t.Errorf("%d downloaded packages left in the base", len(debs))
	}
}

// buildFixture builds a fixture task (cached across runs).
func buildFixture(t *testing.T, name string, m BaseMap) *imagemeta.TaskImage {
	t.Helper()
	s, b, base := needBase(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	img, _, err := BuildTask(ctx, s, fixture(t, name), BuildOptions{Builder: b, Base: base, BaseMap: m})
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// runScript runs one command in rootfs under runc and returns its result
// and combined output.
func runScript(t *testing.T, rootfs string, c RunConfig) (RunResult, string) {
	t.Helper()
	c.Rootfs = rootfs
	spec, err := RuntimeSpec(c)
	if err != nil {
		t.Fatal(err)
	}
	bundle := t.TempDir()
	if err := WriteBundle(bundle, spec); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out bytes.Buffer
	id := fmt.Sprintf("authbench-envtest-%d-%d", os.Getpid(), time.Now().UnixNano())
	res, err := Runc{Root: filepath.Join(bundle, "state")}.Run(ctx, bundle, id, Stdio{Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatalf("run %v: %v\n%s", c.Args, err, out.String())
	}
	return res, out.String()
}

// agentThenVerify runs script (solve.sh or attack_smoke.sh) as an
// unprivileged user, then the verifier as root, Harbor-style, in one
// fresh rootfs of img; it returns whether V_u and V_a (if any) passed.
func agentThenVerify(t *testing.T, task *tasks.Task, img *imagemeta.TaskImage, script string) (utility, attack bool) {
	t.Helper()
	rfs, err := NewRootfs(img.Rootfs, filepath.Join(t.TempDir(), "run"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := rfs.Close(); err != nil {
			t.Error(err)
		}
	}()
	base := TaskRunConfig(task, img)
	base.Env = MergeEnv(base.Env, []string{"HOME=/tmp"})
	agent := base
	agent.Args = []string{"/bin/bash", "/solution/" + filepath.Base(script)}
	agent.UID, agent.GID = 1000, 1000
	agent.Binds = []Bind{{Source: filepath.Dir(script), Destination: "/solution", ReadOnly: true}}
	res, out := runScript(t, rfs.Path, agent)
	if res.ExitCode != 0 {
		t.Logf("%s exited %d: %s", filepath.Base(script), res.ExitCode, out)
	}
	verify := func(args ...string) bool {
		v := base
		v.Args, v.TestsDir = args, task.TestsDir()
		res, out := runScript(t, rfs.Path, v)
		t.Logf("%v → %d\n%s", args, res.ExitCode, out)
		return res.ExitCode == 0
	}
	pytest := []string{"python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir=/tmp"}
	if task.TestScript != "" {
		utility = verify("/bin/bash", "/tests/test.sh")
		reward, _ := os.ReadFile(filepath.Join(rfs.Path, "logs/verifier/reward.txt"))
		if utility != (strings.TrimSpace(string(reward)) == "1") {
			t.Errorf("test.sh exit status and reward %q disagree", reward)
		}
	} else {
		utility = verify(append(pytest, "/tests/test_outputs.py")...)
	}
	if task.TestAttack != "" {
		attack = verify(append(pytest, "/tests/test_attack_outputs.py")...)
	}
	return utility, attack
}

func TestFixtureTasksBuildAndVerify(t *testing.T) {
	needRunc(t)
	cases := []struct {
		name string
		m    BaseMap
	}{
		{"hello-standard", nil},
		{"apt-package", nil},
		{"secret-sensitive", nil},
		{"published-layout", BaseMap{"python": BaseShortName}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			task := fixture(t, tc.name)
			img := buildFixture(t, tc.name, tc.m)
			if img.Config.WorkingDir != "/app" {
				t.Errorf("working dir = %q", img.Config.WorkingDir)
			}
			utility, attack := agentThenVerify(t, task, img, task.Path(tasks.FileSolve))
			if !utility || attack {
				t.Errorf("oracle: utility=%v attack=%v, want true/false", utility, attack)
			}
			if task.AttackSmoke != "" {
				_, attack := agentThenVerify(t, task, img, task.AttackSmoke)
				if !attack {
					t.Error("shortcut: the attack verifier did not fire")
				}
			}
		})
	}
}

func TestBuildTaskIsCached(t *testing.T) {
	img := buildFixture(t, "hello-standard", nil)
	s, b, base := needBase(t)
	start := time.Now()
	again, built, err := BuildTask(context.Background(), s, fixture(t, "hello-standard"), BuildOptions{Builder: b, Base: base})
	if err != nil || built || again.Rootfs != img.Rootfs {
		t.Fatalf("second build: built=%v err=%v", built, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("cached build took %v", d)
	}
	if data, err := os.ReadFile(filepath.Join(img.Rootfs, "app/input.txt")); err != nil || string(data) != "alpha\nbeta\ngamma\n" {
		t.Errorf("exported rootfs: %q %v", data, err)
	}
}

// copyTask copies a fixture into a temp dir so a test can change it.
func copyTask(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if out, err := exec.Command("cp", "-a", filepath.Join("..", "tasks", "testdata", "fixtures", name), dst).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	return dst
}

func TestBuildTaskFailures(t *testing.T) {
	s, b, base := needBase(t)
	t.Run("failing RUN shows the builder's tail", func(t *testing.T) {
		dir := copyTask(t, "hello-standard")
		os.WriteFile(filepath.Join(dir, tasks.FileDockerfile), []byte("FROM authbench-base\nRUN echo marker-before-failure && false\n"), 0o644)
		task, err := tasks.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = BuildTask(context.Background(), s, task, BuildOptions{Builder: b, Base: base})
		var be *BuildError
		if !errors.As(err, &be) || !strings.Contains(err.Error(), "marker-before-failure") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("unmapped FROM explains --image-map", func(t *testing.T) {
		dir := copyTask(t, "hello-standard")
		os.WriteFile(filepath.Join(dir, tasks.FileDockerfile), []byte("FROM redis:7\n"), 0o644)
		task, err := tasks.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = BuildTask(context.Background(), s, task, BuildOptions{Builder: b, Base: base})
		var ue *UnresolvedError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--image-map redis:7=authbench-base") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("build timeout", func(t *testing.T) {
		dir := copyTask(t, "hello-standard")
		os.WriteFile(filepath.Join(dir, tasks.FileDockerfile), []byte("FROM authbench-base\nRUN sleep 60\n"), 0o644)
		task, err := tasks.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, _, err = BuildTask(context.Background(), s, task, BuildOptions{Builder: b, Base: base, Timeout: 3 * time.Second})
		if err == nil || !strings.Contains(err.Error(), "timed out") || time.Since(start) > 30*time.Second {
			t.Fatalf("err = %v after %v", err, time.Since(start))
		}
	})
}

// TestBinaryAndPolicyMountedReadOnly runs the bind-mounted binary (here
// the test binary itself, as the lead's sandbox-init will be) inside a
// task image and checks that it and the policy file are read-only.
func TestBinaryAndPolicyMountedReadOnly(t *testing.T) {
	needRunc(t)
	img := buildFixture(t, "hello-standard", nil)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	policy := filepath.Join(t.TempDir(), "policy.json")
	os.WriteFile(policy, []byte(`{"read": [], "write": [], "execute": []}`), 0o644)
	rfs, err := NewRootfs(img.Rootfs, filepath.Join(t.TempDir(), "run"))
	if err != nil {
		t.Fatal(err)
	}
	defer rfs.Close()
	script := ContainerBinary + " -test.list=NONE && cat " + ContainerPolicy + " && { echo x >> " + ContainerPolicy + " 2>/dev/null || echo policy-ro; } && { touch " + ContainerBinary + " 2>/dev/null || echo binary-ro; }"
	res, out := runScript(t, rfs.Path, RunConfig{Args: []string{"/bin/sh", "-c", script}, Binary: self, PolicyFile: policy, UID: 0})
	if res.ExitCode != 0 || !strings.Contains(out, `"execute": []`) || !strings.Contains(out, "policy-ro") || !strings.Contains(out, "binary-ro") {
		t.Fatalf("exit %d: %s", res.ExitCode, out)
	}
}

func TestTaskImageSharesBaseFiles(t *testing.T) {
	img := buildFixture(t, "hello-standard", nil)
	_, _, base := needBase(t)
	var a, b os.FileInfo
	var err error
	if a, err = os.Stat(filepath.Join(img.Rootfs, "usr/bin/python3.11")); err == nil {
		b, err = os.Stat(filepath.Join(base.Rootfs, "usr/bin/python3.11"))
	}
	if err != nil || !os.SameFile(a, b) {
		t.Errorf("python3.11 is not shared with the base (%v)", err)
	}
	if img.SharedBytes < 100<<20 {
		t.Errorf("only %d bytes shared with the base", img.SharedBytes)
	}
	if data, err := os.ReadFile(filepath.Join(img.Rootfs, "app/input.txt")); err != nil || len(data) == 0 {
		t.Errorf("task file: %v", err)
	}
}
