package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/cli/core"
	"github.com/authbench/authbench/internal/testenv"
)

func TestEnvBuildUnmappedFromFailsFast(t *testing.T) {
	if _, err := exec.LookPath("buildah"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("buildah is required under CI=true")
		}
		t.Skip("skipping: needs buildah")
	}
	images := t.TempDir()
	// python:3.11-slim has an offline default; redis:7 has none.
	task := filepath.Join(t.TempDir(), "published-layout")
	if out, err := exec.Command("cp", "-a", filepath.Join(taskFixtures, "published-layout"), task).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	df := filepath.Join(task, "environment", "Dockerfile")
	data, err := os.ReadFile(df)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(df, []byte(strings.Replace(string(data), "python:3.11-slim", "redis:7", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI("env", "build", "--images-dir", images, task)
	if code != core.ExitUsage {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"FROM ${BASE_IMAGE} (= redis:7)", "--image-map redis:7=authbench-base", "[image_map]"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("message lacks %q:\n%s", want, errOut)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(images, "base")); len(entries) != 0 {
		t.Error("a base build started before the FROM check")
	}
}

func TestEnvBadInput(t *testing.T) {
	task := filepath.Join(taskFixtures, "hello-standard")
	cases := map[string][]string{
		"unknown builder":    {"env", "build", "--builder", "kaniko", task},
		"bad base map":       {"env", "build", "--base-map", "python", task},
		"bad build arg":      {"env", "build", "--build-arg", "=x", task},
		"missing config":     {"env", "base", "--config", filepath.Join(t.TempDir(), "nope.toml")},
		"invalid task":       {"env", "build", t.TempDir()},
		"no task":            {"env", "build"},
		"base takes no args": {"env", "base", "x"},
	}
	for name, args := range cases {
		if code, _, errOut := runCLI(args...); code != core.ExitUsage {
			t.Errorf("%s: exit %d, want %d: %s", name, code, core.ExitUsage, errOut)
		}
	}
	bad := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(bad, []byte("[env]\nbuilder = 3\n"), 0o644)
	code, _, errOut := runCLI("env", "base", "--config", bad)
	if code != core.ExitUsage || !strings.Contains(errOut, "config.toml:2") {
		t.Errorf("bad config: exit %d: %s", code, errOut)
	}
}

// TestEnvBaseAndBuild uses the shared test images directory (see
// env/image_test.go): after the env tests it is all cache hits.
func TestEnvBaseAndBuild(t *testing.T) {
	for _, bin := range []string{"debootstrap", "buildah"} {
		if _, err := exec.LookPath(bin); err != nil || os.Geteuid() != 0 {
			if os.Getenv("CI") == "true" {
				t.Fatalf("root and %s are required under CI=true", bin)
			}
			t.Skipf("skipping: needs root and %s", bin)
		}
	}
	images := testenv.ImagesDir()
	if code, _, errOut := runCLI("env", "base", "--images-dir", images); code != core.ExitOK {
		t.Fatalf("env base: exit %d: %s", code, errOut)
	}
	code, out, errOut := runCLI("env", "base", "--images-dir", images, "--json")
	if code != core.ExitOK || !strings.Contains(errOut, "up to date") || !strings.Contains(out, `"built":false`) {
		t.Fatalf("second env base: exit %d: %s %s", code, out, errOut)
	}
	cfg := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(cfg, []byte("[base_map]\n\"python:3.11-slim\" = \"authbench-base\"\n"), 0o644)
	code, out, errOut = runCLI("env", "build", "--images-dir", images, "--config", cfg, "--json", filepath.Join(taskFixtures, "published-layout"))
	if code != core.ExitOK || !strings.Contains(out, `"how":"image-map python:3.11-slim"`) {
		t.Fatalf("env build: exit %d: %s %s", code, out, errOut)
	}
}
