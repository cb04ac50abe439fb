package env

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runIn runs args in a fresh overlay of lower under runc and returns the
// result and output. The rootfs is closed before it returns.
func runIn(t *testing.T, lower string, c RunConfig, timeout time.Duration) (RunResult, string, string) {
	t.Helper()
	work := t.TempDir()
	rfs, err := NewRootfs(lower, filepath.Join(work, "run"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := rfs.Close(); err != nil {
			t.Error(err)
		}
	}()
	c.Rootfs = rfs.Path
	spec, err := RuntimeSpec(c)
	if err != nil {
		t.Fatal(err)
	}
	bundle := filepath.Join(work, "bundle")
	if err := WriteBundle(bundle, spec); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var out, errb bytes.Buffer
	id := fmt.Sprintf("authbench-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	r := Runc{Root: filepath.Join(work, "runc")}
	res, err := r.Run(ctx, bundle, id, Stdio{Stdout: &out, Stderr: &errb})
	if err != nil {
		t.Fatalf("run: %v\nstderr: %s", err, errb.String())
	}
	return res, out.String(), errb.String()
}

func TestRuncRunsCommandInRootfs(t *testing.T) {
	needRunc(t)
	lower := miniRootfs(t)
	tests := t.TempDir()
	os.WriteFile(filepath.Join(tests, "check.sh"), []byte("echo tests-visible\n"), 0o644)
	res, out, stderr := runIn(t, lower, RunConfig{
		Args:     []string{"/bin/sh", "-c", "cat /app/hello.txt; id -u; id -g; sh /tests/check.sh; echo x > /app/new.txt && echo wrote; touch /tests/nope 2>/dev/null || echo tests-ro; pwd; echo $FOO; exit 7"},
		Env:      []string{"FOO=bar"},
		Cwd:      "/app",
		UID:      1000,
		GID:      1000,
		TestsDir: tests,
	}, 30*time.Second)
	want := "hello from the image\n1000\n1000\ntests-visible\n"
	if res.ExitCode != 7 || !strings.HasPrefix(out, want) || !strings.Contains(out, "tests-ro\n/app\nbar\n") {
		t.Fatalf("exit %d, out %q, stderr %q", res.ExitCode, out, stderr)
	}
	// Its own network namespace: loopback only.
	res2, netdev, _ := runIn(t, lower, RunConfig{Args: []string{"/bin/cat", "/proc/net/dev"}}, 30*time.Second)
	if res2.ExitCode != 0 || !strings.Contains(netdev, "lo:") || strings.Count(netdev, ":") != 1 {
		t.Errorf("network devices without allow_internet: %q", netdev)
	}
	// /app is root's, so uid 1000 could not write there.
	if strings.Contains(out, "wrote") {
		t.Errorf("unprivileged user wrote to a root-owned dir: %q", out)
	}
	if _, err := os.Stat(filepath.Join(lower, "app", "new.txt")); err == nil {
		t.Error("the run wrote into the image rootfs")
	}
}

func TestRuncRootWritesStayInUpper(t *testing.T) {
	needRunc(t)
	lower := miniRootfs(t)
	work := t.TempDir()
	rfs, err := NewRootfs(lower, filepath.Join(work, "run"))
	if err != nil {
		t.Fatal(err)
	}
	defer rfs.Close()
	spec, _ := RuntimeSpec(RunConfig{Rootfs: rfs.Path, Args: []string{"/bin/sh", "-c", "echo changed > /app/hello.txt"}, AllowInternet: true})
	bundle := filepath.Join(work, "bundle")
	if err := WriteBundle(bundle, spec); err != nil {
		t.Fatal(err)
	}
	res, err := Runc{Root: filepath.Join(work, "runc")}.Run(context.Background(), bundle, fmt.Sprintf("authbench-upper-%d", os.Getpid()), Stdio{})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("run: %+v %v", res, err)
	}
	if data, _ := os.ReadFile(filepath.Join(rfs.Upper(), "app", "hello.txt")); string(data) != "changed\n" {
		t.Errorf("upper has %q", data)
	}
	if data, _ := os.ReadFile(filepath.Join(lower, "app", "hello.txt")); string(data) != "hello from the image\n" {
		t.Errorf("lower changed: %q", data)
	}
}

func TestRuncTimeoutKillsTree(t *testing.T) {
	needRunc(t)
	start := time.Now()
	res, _, _ := runIn(t, miniRootfs(t), RunConfig{
		Args: []string{"/bin/sh", "-c", "sleep 100 & sleep 100; wait"},
	}, 500*time.Millisecond)
	if !res.TimedOut || res.ExitCode != 128+9 {
		t.Errorf("result = %+v", res)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("timeout took %v", d)
	}
}

func TestRuncBadCommandIsAnError(t *testing.T) {
	needRunc(t)
	work := t.TempDir()
	rfs, err := NewRootfs(miniRootfs(t), filepath.Join(work, "run"))
	if err != nil {
		t.Fatal(err)
	}
	defer rfs.Close()
	spec, _ := RuntimeSpec(RunConfig{Rootfs: rfs.Path, Args: []string{"/no/such/program"}})
	WriteBundle(filepath.Join(work, "b"), spec)
	_, err = Runc{Root: filepath.Join(work, "runc")}.Run(context.Background(), filepath.Join(work, "b"), fmt.Sprintf("authbench-bad-%d", os.Getpid()), Stdio{})
	if err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("err = %v", err)
	}
}

func TestRootfsCloseLeavesNothingMounted(t *testing.T) {
	needRoot(t)
	need(t, "overlayfs", overlayAvailable())
	work := t.TempDir()
	run := filepath.Join(work, "run")
	rfs, err := NewRootfs(miniRootfs(t), run)
	if err != nil {
		t.Fatal(err)
	}
	if rfs.Setup <= 0 || !isMounted(t, rfs.Path) {
		t.Fatalf("setup %v, mounted %v", rfs.Setup, isMounted(t, rfs.Path))
	}
	// A process inside the rootfs keeps it busy: Close still unmounts.
	f, err := os.Open(filepath.Join(rfs.Path, "app", "hello.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := rfs.Close(); err != nil {
		t.Fatal(err)
	}
	if isMounted(t, rfs.Path) {
		t.Error("still mounted after Close")
	}
	if _, err := os.Stat(run); !os.IsNotExist(err) {
		t.Errorf("run dir left behind: %v", err)
	}
	if err := rfs.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	// Errors leave nothing behind either.
	if _, err := NewRootfs(filepath.Join(work, "missing"), filepath.Join(work, "run2")); err == nil {
		t.Error("missing lower: want an error")
	}
	if _, err := os.Stat(filepath.Join(work, "run2")); !os.IsNotExist(err) {
		t.Error("failed NewRootfs left its run dir")
	}
}

func isMounted(t *testing.T, p string) bool {
	t.Helper()
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) > 4 && f[4] == p {
			return true
		}
	}
	return false
}

func TestRuncAppliesResourceLimits(t *testing.T) {
	needRunc(t)
	res, out, stderr := runIn(t, miniRootfs(t), RunConfig{
		Args:      []string{"/bin/cat", "/proc/self/cgroup"},
		CPUs:      1,
		MemoryMB:  256,
		PidsLimit: 64,
	}, 30*time.Second)
	if res.ExitCode != 0 || !strings.Contains(out, "memory:") {
		t.Fatalf("exit %d out %q stderr %q", res.ExitCode, out, stderr)
	}
}
